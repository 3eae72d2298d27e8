/**
 * The conformance probe on the agent page, in Chromium against real SDK agents through the real handler registry: the
 * "Run conformance probe" button fills the operation × interface table (all green on HTTP+JSON, JSON-RPC and gRPC),
 * a broken JSON-RPC interface shows its error code in its column, and "also send" probes the sends.
 */
import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { startAgents } from '../support/agents.js';
import { CHROMIUM, POLL, startGui, text, type Gui } from '../support/gui.js';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let raw: RawServer;
let box: Sandbox;
let gui: Gui | undefined;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM} (apt-get install chromium)`).toBe(true);
  fleet = await startAgents({ full: { behaviour: 'echo', grpc: true, streaming: true, pushNotifications: true } });
  raw = await startRawServer();
  const full = fleet.agents.full!;
  raw.route('/.well-known/agent-card.json', (_req, res) =>
    json(
      res,
      200,
      minimalCard(raw.url, {
        name: 'half-broken',
        supportedInterfaces: [
          { url: full.restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
          { url: `${raw.url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        ],
      }),
    ),
  );
  raw.route('/rpc', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('<<not json>>'));
});
afterAll(async () => {
  await fleet.close();
  await raw.close();
});
afterEach(async () => {
  await gui?.close();
  gui = undefined;
  box.dispose();
});

const cell = (g: Gui, operation: string, column: number) => g.page.locator(`[data-testid=conformance-row][data-operation=${operation}] td`).nth(column);

describe('conformance probe in the agent page', () => {
  it('runs from the interface table and shows every advertised cell ok on all three bindings', async () => {
    box = sandbox();
    expect((await box.run(['agent', 'add', 'full', fleet.agents.full!.baseUrl])).code).toBe(0);
    expect((await box.run(['agent', 'add', 'half', raw.url])).code).toBe(0);
    gui = await startGui(box, { viewport: { width: 1280, height: 900 } });
    const { page } = gui;
    await page.getByTestId('nav-agents').click();
    await page.getByRole('button', { name: 'Inspect full' }).click();
    await expect.poll(text(page.getByTestId('interfaces').locator('caption')), POLL).toContain('Not probed');

    await page.getByTestId('run-conformance').click();
    const table = page.getByTestId('conformance-table');
    await expect.poll(text(table), POLL).toContain('GetTask');
    // The embedded agent also lists its HTTP URLs for v0.3 clients: probed in the 0.3 dialect, after the 1.0 columns.
    expect(await page.getByTestId('conformance-column').allInnerTexts()).toEqual([
      'http+json/1.0',
      'json-rpc/1.0',
      'grpc/1.0',
      'json-rpc/0.3',
      'http+json/0.3',
    ]);
    expect(await page.getByTestId('conformance').getAttribute('data-passed')).toBe('true');
    for (let column = 1; column <= 3; column++) {
      expect(await cell(gui, 'GetTask', column).innerText()).toMatch(/^ok · \d+ ms$/);
      expect(await cell(gui, 'SendMessage', column).innerText()).toBe('skipped');
      expect(await cell(gui, 'GetExtendedAgentCard', column).innerText()).toBe('not advertised');
    }
    expect(await page.locator('[data-testid=conformance-cell][data-status=failed]').count()).toBe(0);
    expect(await page.getByTestId('interfaces').locator('caption').innerText()).toContain('Probed');
    await gui.shot('conformance-green');
    // The table fits the narrowest window the app supports: nothing scrolls sideways at 900 px.
    await page.setViewportSize({ width: 900, height: 600 });
    const overflow = await page.evaluate(() => {
      const content = document.querySelector('.content') as HTMLElement;
      return { page: document.documentElement.scrollWidth - window.innerWidth, content: content.scrollWidth - content.clientWidth };
    });
    expect(overflow).toEqual({ page: 0, content: 0 });
    await page.setViewportSize({ width: 1280, height: 900 });

    // With "also send", the sends are probed too.
    await page.getByTestId('conformance-include-send').check();
    await page.getByTestId('run-conformance').click();
    await expect.poll(() => cell(gui!, 'SendMessage', 1).innerText(), POLL).toMatch(/^ok · \d+ ms$/);
    expect(await cell(gui, 'SendStreamingMessage', 3).innerText()).toMatch(/^ok · \d+ ms$/);

    // Another agent: its own probe, and the broken JSON-RPC interface names its error.
    await page.getByRole('button', { name: 'Inspect half' }).click();
    await expect.poll(text(page.getByTestId('interfaces').locator('caption')), POLL).toContain('Not probed');
    expect(await page.getByTestId('conformance-table').count()).toBe(0);
    await page.getByTestId('run-conformance').click();
    await expect.poll(text(page.getByTestId('conformance-failures')), POLL).toContain('json-rpc/1.0 GetTask: missive::protocol::invalid_json');
    expect(await page.getByTestId('conformance').getAttribute('data-passed')).toBe('false');
    expect(await cell(gui, 'GetTask', 1).innerText()).toMatch(/^ok · \d+ ms$/);
    expect(await cell(gui, 'GetTask', 2).innerText()).toMatch(/^invalid_json · \d+ ms$/);
    expect(await page.getByTestId('conformance-table').locator('caption').innerText()).toMatch(/\d+ check\(s\) failed/);
    await gui.shot('conformance-broken');
  });
});
