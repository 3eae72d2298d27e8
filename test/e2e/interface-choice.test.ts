/**
 * Truthful negotiation in the console (Chromium, real SDK peers): a card's relative interface URL is shown resolved
 * against the card's URL, as the selected interface with the reason `agent inspect` prints; an interface missive cannot
 * call is marked skipped, never selected; and an agent whose card has no interface missive can call is not
 * "reachable ok".
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { CHROMIUM, POLL, startGui, text, type Gui } from '../support/gui.js';
import { startRelativeUrlPeer, type RelativeUrlPeer } from '../support/relative-url-peer.js';

let box: Sandbox;
let gui: Gui;
const peers: Record<string, RelativeUrlPeer> = {};

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM} (apt-get install chromium)`).toBe(true);
  peers.rel = await startRelativeUrlPeer((base) => [
    { url: '/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ]);
  peers.skip = await startRelativeUrlPeer((base) => [
    { url: '/a2a/grpc', protocolBinding: 'GRPC', protocolVersion: '1.0' },
    { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ]);
  peers.none = await startRelativeUrlPeer(() => [{ url: '/a2a/grpc', protocolBinding: 'GRPC', protocolVersion: '1.0' }]);
  box = sandbox();
  for (const [alias, peer] of Object.entries(peers)) expect((await box.run(['agent', 'add', alias, peer.baseUrl])).code).toBe(0);
  // A send on the relative URL works; `none` has its card cached (inspect), with nothing missive can call.
  expect((await box.run(['send', 'rel', 'hello'])).code).toBe(0);
  expect((await box.run(['send', 'skip', 'hello'])).code).toBe(0);
  expect((await box.run(['agent', 'inspect', 'none'])).code).toBe(0);
  gui = await startGui(box, { viewport: { width: 1280, height: 800 } });
}, 60_000);
afterAll(async () => {
  await gui?.close();
  for (const peer of Object.values(peers)) await peer.close();
  box.dispose();
});

describe('the interface table and health say which interface and why', () => {
  it('shows the relative URL resolved and selected with its reason, the unusable one skipped, and no false "reachable ok"', async () => {
    const { page } = gui;
    await page.getByTestId('nav-agents').click();
    const healthOf = (alias: string) => page.locator(`[data-testid=agent-row][data-alias=${alias}]`).getByTestId('health');
    await expect.poll(text(healthOf('rel')), POLL).toMatch(/^● reachable ok/);
    await expect.poll(text(healthOf('none')), POLL).toBe('● card fetched, no interface missive can call (see Inspect)');

    const inspected = (await box.run(['agent', 'inspect', 'rel', '--json'])).json().data.selected_interface;
    await page.getByRole('button', { name: 'Inspect rel' }).click();
    const selected = page.getByTestId('interfaces').locator('[data-selected=true]');
    await expect.poll(text(selected), POLL).toContain(`/a2a/rest → ${peers.rel!.baseUrl}/a2a/rest`);
    expect(await page.getByTestId('interfaces').locator('[data-selected=true]').count()).toBe(1);
    expect((await selected.getByTestId('interface-reason').innerText()).trim()).toBe(`· ${inspected.reason}`);
    expect(inspected.reason).toContain(`resolved against the card's URL ${peers.rel!.cardUrl}`);
    await gui.shot('interface-relative-url');

    await page.getByRole('button', { name: 'Inspect skip' }).click();
    await expect.poll(text(selected), POLL).toContain(`${peers.skip!.baseUrl}/a2a/jsonrpc`);
    const skipped = page.getByTestId('interfaces').locator('[data-skipped=true]');
    expect(await skipped.getAttribute('data-selected')).toBe('false');
    expect(await skipped.getByTestId('interface-skipped').innerText()).toBe(
      'skipped: missive cannot call it (a gRPC target is host:port or a URL, and a path cannot be resolved to one)',
    );
    expect(await selected.getByTestId('interface-reason').innerText()).toContain('skipped interface 1 (GRPC "/a2a/grpc")');
  });
});
