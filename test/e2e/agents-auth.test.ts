/**
 * Agents and their auth in the web console (Chromium, the real handler registry, a real SQLite file, real peers):
 * a bearer-protected SDK agent registered with a new auth ref and its secret typed into the GUI, then called with
 * it; the secret is nowhere in the page (any view), the journal or the database bytes. Agents and auth refs edited
 * and removed; a flawed card's warnings while it stays usable; a refused card's issues and raw JSON with nothing
 * registered; and a failed inspect that does not leave the previous agent's card on screen.
 */
import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readDb, sandbox, stateBytes, type Sandbox } from '../support/cli.js';
import { closedPortUrl } from '../support/agents.js';
import { CHROMIUM, POLL, startGui, text, type Gui } from '../support/gui.js';
import { startSecuredAgent, type SecuredAgent } from '../support/secured-agent.js';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';

let box: Sandbox;
let gui: Gui | undefined;
const peers: Array<SecuredAgent | RawServer> = [];

beforeAll(() => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM} (apt-get install chromium)`).toBe(true);
});
afterEach(async () => {
  await gui?.close();
  gui = undefined;
  await Promise.all(peers.splice(0).map((p) => p.close()));
  box.dispose();
});

async function open(): Promise<Gui> {
  box = sandbox();
  gui = await startGui(box, { viewport: { width: 1280, height: 800 } });
  return gui;
}

const withDb = <T>(fn: (d: Database.Database) => T): T => readDb(box, fn);
const agentRows = () => withDb((d) => d.prepare(`SELECT alias, auth_ref_name AS auth FROM agents ORDER BY alias`).all());

/** Every word the page shows in every view, and what its inputs hold. */
async function allPageText(g: Gui): Promise<string> {
  const parts: string[] = [];
  const views = await g.page.locator('[data-testid^="nav-"]').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('data-testid')!.slice(4)));
  expect(views).toEqual(expect.arrayContaining(['agents', 'compose', 'events', 'settings']));
  for (const id of views) {
    if (!(await g.page.getByTestId(`view-${id}`).count())) continue;
    await g.page.getByTestId(`nav-${id}`).click();
    await expect.poll(() => g.page.getByTestId(`view-${id}`).isVisible(), POLL).toBe(true);
    parts.push(
      await g.page.evaluate(
        () => document.documentElement.innerText + [...document.querySelectorAll('input, textarea')].map((e) => (e as HTMLInputElement).value).join('\n'),
      ),
    );
  }
  return parts.join('\n');
}

describe('agents with auth', () => {
  it('registers a bearer-protected agent with a new auth ref and a secret typed into the GUI, calls it, and the secret is nowhere to be found', async () => {
    const SECRET = 'gui-bearer-6f1c2a9e-secret';
    const agent = await startSecuredAgent({ token: SECRET });
    peers.push(agent);
    const { page, registry } = await open();
    const form = page.getByTestId('agent-add-form');
    await form.locator('input[name=alias]').fill('secure');
    await form.locator('input[name=baseUrl]').fill(agent.baseUrl);
    await form.locator('select[name=auth-ref]').selectOption('__new__');
    const refForm = page.getByTestId('auth-ref-form');
    await refForm.locator('input[name=auth-ref-name]').fill('secure-token');
    expect(await refForm.locator('select[name=auth-ref-flow]').inputValue()).toBe('bearer');
    // The test's secret store is memory: the form says the secret lasts for this session only.
    expect(await refForm.getByTestId('secret-note').innerText()).toContain('for this session only');
    await refForm.locator('input[name=auth-ref-secret]').fill(SECRET);
    await refForm.getByTestId('auth-ref-save').click();
    await expect.poll(() => form.locator('select[name=auth-ref]').inputValue(), POLL).toBe('secure-token');
    await page.getByTestId('agent-register').click();

    // The card was fetched at registration: the inspect panel opens on it.
    await expect.poll(text(page.getByTestId('agent-card')), POLL).toContain('secured agent');
    await expect.poll(text(page.getByTestId('credentials')), POLL).toContain('auth ref "secure-token": sent (same origin)');
    expect(agentRows()).toEqual([{ alias: 'secure', auth: 'secure-token' }]);

    await gui!.shot('agents-secured');

    // A message sent from Compose carries the secret the GUI stored in the main process; the answer is in view.
    await page.getByTestId('nav-compose').click();
    const compose = page.getByTestId('view-compose');
    await compose.locator('select[name=agent]').selectOption('secure');
    await compose.locator('textarea[name=text]').fill('hello secured');
    await compose.getByTestId('send').click();
    await expect.poll(text(compose.getByTestId('answer')), POLL).toContain('hello secured');
    expect(agent.requests.at(-1)).toEqual(expect.objectContaining({ authorization: `Bearer ${SECRET}` }));
    // The console's own registry answers the same way, and never with the secret.
    const sent = await registry.invoke('messages.send', { agent: 'secure', inputs: { text: 'again, secured' } });
    expect(sent.ok, JSON.stringify(sent)).toBe(true);
    expect(JSON.stringify(sent)).toContain('again, secured');
    expect(JSON.stringify(sent)).not.toContain(SECRET);

    // Settings lists the ref, where its secret lives and who uses it — and says it is kept for this session only.
    await page.getByTestId('nav-settings').click();
    const row = page.getByTestId('auth-refs-table').locator('[data-name="secure-token"]');
    await expect.poll(text(row), POLL).toMatch(/secure-token\s+header\s+missive\/secure-token\s+secret present\s+secure/);
    expect(await page.getByTestId('keyring-status').innerText()).toContain('Secrets are kept for this session only');

    // The secret: not in any view, not in the journal, not in the database files.
    expect(await allPageText(gui!)).not.toContain(SECRET);
    const journal = withDb((d) => d.prepare(`SELECT event_type, payload_json FROM events`).all() as Array<{ event_type: string; payload_json: string }>);
    expect(journal.map((e) => e.event_type)).toEqual(
      expect.arrayContaining(['missive.auth_ref.added', 'missive.auth_ref.secret_set', 'missive.agent.added', 'a2a.agent_card.fetched']),
    );
    expect(JSON.stringify(journal)).not.toContain(SECRET);
    expect(stateBytes(box.home)).not.toContain(SECRET);
  });

  it('registration fails clearly and registers nothing when the card cannot be fetched', async () => {
    const { page } = await open();
    const form = page.getByTestId('agent-add-form');
    await form.locator('input[name=alias]').fill('nowhere');
    await form.locator('input[name=baseUrl]').fill(await closedPortUrl());
    await page.getByTestId('agent-register').click();
    await expect.poll(text(form.getByTestId('error')), POLL).toMatch(/missive::transport::/);
    expect(agentRows()).toEqual([]);
    expect(await form.locator('input[name=alias]').inputValue()).toBe('nowhere');
  });

  it('edits and removes an agent and an auth ref', async () => {
    const agent = await startSecuredAgent();
    peers.push(agent);
    const { page } = await open();
    for (const args of [
      ['auth', 'add', 'first', '--env', 'FIRST_TOKEN'],
      ['auth', 'add', 'second', '--keyring-service', 'missive', '--keyring-account', 'second'],
      ['agent', 'add', 'plain', agent.baseUrl, '--auth-ref', 'second'],
    ]) {
      const res = await box.run(args);
      expect(res.code, res.stderr).toBe(0);
    }
    await page.reload();
    const row = page.getByTestId('agents-table').locator('[data-alias=plain]');
    await expect.poll(text(row), POLL).toContain('auth: second');

    // Edit: what `agent set` changes; here the auth ref.
    await row.getByRole('button', { name: 'Edit plain' }).click();
    const edit = page.getByTestId('agent-edit-form');
    await edit.locator('select[name=auth-ref]').selectOption('first');
    await edit.getByTestId('agent-save').click();
    await expect.poll(text(row), POLL).toContain('auth: first');
    expect(agentRows()).toEqual([{ alias: 'plain', auth: 'first' }]);

    // Settings: the auth ref "second" becomes an API key in the query; "first" is removed and unlinks "plain".
    await page.getByTestId('nav-settings').click();
    const refs = page.getByTestId('auth-refs-table');
    await refs.getByRole('button', { name: 'Edit auth ref second' }).click();
    const refForm = page.getByTestId('auth-ref-form');
    expect(await refForm.locator('input[name=auth-ref-name]').isDisabled()).toBe(true);
    await refForm.locator('select[name=auth-ref-flow]').selectOption('api_key');
    await refForm.locator('select[name=auth-ref-in]').selectOption('query');
    await refForm.locator('input[name=auth-ref-key-name]').fill('api_key');
    await refForm.getByTestId('auth-ref-save').click();
    await expect.poll(text(refs.locator('[data-name=second]')), POLL).toMatch(/second\s+api_key/);
    expect(withDb((d) => JSON.parse((d.prepare(`SELECT flow_json FROM auth_refs WHERE name = 'second'`).get() as { flow_json: string }).flow_json))).toEqual({
      type: 'api_key',
      in: 'query',
      name: 'api_key',
    });

    await refs.getByRole('button', { name: 'Remove auth ref first' }).click();
    await refs.getByRole('button', { name: 'Confirm removing auth ref first' }).click();
    await expect.poll(() => refs.locator('[data-name=first]').count(), POLL).toBe(0);
    expect(await page.getByTestId('auth-refs').innerText()).toContain('plain now send no credentials');
    expect(withDb((d) => d.prepare(`SELECT name FROM auth_refs ORDER BY name`).all())).toEqual([{ name: 'second' }]);
    expect(agentRows()).toEqual([{ alias: 'plain', auth: null }]);

    // Remove the agent: a confirmation, then it is gone from the table and the store.
    await page.getByTestId('nav-agents').click();
    await row.getByRole('button', { name: 'Remove plain' }).click();
    await row.getByRole('button', { name: 'Confirm removing plain' }).click();
    await expect.poll(() => page.getByTestId('agents-table').count(), POLL).toBe(0);
    expect(agentRows()).toEqual([]);
  });

  it('lists a flawed card’s warnings while it stays usable, and shows a refused card’s every issue and raw JSON with nothing registered', async () => {
    const flawed = await startRawServer();
    const refused = await startRawServer();
    peers.push(flawed, refused);
    const card = minimalCard(flawed.url);
    flawed.route('/.well-known/agent-card.json', (_req, res) =>
      json(res, 200, {
        ...card,
        description: undefined,
        skills: [],
        supportedInterfaces: [
          ...card.supportedInterfaces,
          { url: '/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          { url: `${flawed.url}/ws`, protocolBinding: 'WEBSOCKET', protocolVersion: '1.0' },
          { url: 'http://127.0.0.1:1/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '3.0' },
        ],
      }),
    );
    refused.route('/.well-known/agent-card.json', (_req, res) =>
      json(res, 200, { name: '', marker: 'refused-card-marker-77', supportedInterfaces: [{ url: 7, protocolBinding: 'HTTP+JSON' }], skills: 'lots' }),
    );
    const { page } = await open();
    const form = page.getByTestId('agent-add-form');
    await form.locator('input[name=alias]').fill('flawed');
    await form.locator('input[name=baseUrl]').fill(flawed.url);
    await page.getByTestId('agent-register').click();
    const warnings = page.getByTestId('card-warnings');
    await expect.poll(() => warnings.getAttribute('data-count').catch(() => null), POLL).not.toBeNull();
    const codes = await warnings.getByTestId('card-warning').evaluateAll((items) => items.map((i) => i.getAttribute('data-code')));
    expect(codes).toEqual(
      expect.arrayContaining([
        'missing_description',
        'missing_skills',
        'relative_url',
        'unsupported_binding',
        'cross_origin_url',
        'version_mismatch',
        'unsigned',
      ]),
    );
    expect(await warnings.innerText()).toContain('the card stays usable');
    // Usable: an interface was selected.
    expect(await page.getByTestId('selected-interface').innerText()).toContain(`http+json ${flawed.url}/a2a/rest`);
    expect(agentRows()).toEqual([{ alias: 'flawed', auth: null }]);

    await form.locator('input[name=alias]').fill('refused');
    await form.locator('input[name=baseUrl]').fill(refused.url);
    await page.getByTestId('agent-register').click();
    await expect.poll(text(form.getByTestId('error')), POLL).toContain('missive::protocol::invalid_card');
    const raw = page.getByTestId('raw-card');
    await expect.poll(() => raw.getByTestId('raw-card-issue').count(), POLL).toBeGreaterThanOrEqual(3);
    const issues = await raw.getByTestId('raw-card-issue').allInnerTexts();
    expect(issues.some((i) => i.startsWith('name:'))).toBe(true);
    expect(issues.some((i) => i.startsWith('skills:'))).toBe(true);
    expect(await raw.getByTestId('raw-card-json').innerText()).toContain('"marker": "refused-card-marker-77"');
    expect(agentRows()).toEqual([{ alias: 'flawed', auth: null }]);
    await gui!.shot('agents-card-warnings');
    // A refused card cannot be registered anyway; an agent that cannot be reached can, without its card.
    expect(await page.getByTestId('agent-register-offline').count()).toBe(0);
    await form.locator('input[name=alias]').fill('later');
    await form.locator('input[name=baseUrl]').fill(await closedPortUrl());
    await page.getByTestId('agent-register').click();
    await expect.poll(text(form.getByTestId('error')), POLL).toContain('missive::transport::connection_refused');
    expect(agentRows()).toEqual([{ alias: 'flawed', auth: null }]);
    await page.getByTestId('agent-register-offline').click();
    await expect.poll(agentRows, POLL).toEqual([
      { alias: 'flawed', auth: null },
      { alias: 'later', auth: null },
    ]);
    expect(await page.locator('[data-testid="agent-row"][data-alias="later"]').innerText()).toContain('not fetched');
  });

  it('a failed inspect does not leave the previous agent’s card under its error; a refused card of a registered agent shows as served', async () => {
    const good = await startSecuredAgent();
    const changing = await startRawServer();
    peers.push(good, changing);
    let cardOk = true;
    changing.route('/.well-known/agent-card.json', (_req, res) =>
      json(res, 200, cardOk ? minimalCard(changing.url) : { name: 'Now Broken', supportedInterfaces: 'none', marker: 'broken-later' }),
    );
    const { page } = await open();
    for (const args of [
      ['agent', 'add', 'good', good.baseUrl],
      ['agent', 'add', 'down', await closedPortUrl()],
      ['agent', 'add', 'changing', changing.url],
    ]) {
      const res = await box.run(args);
      expect(res.code, res.stderr).toBe(0);
    }
    await page.reload();
    await page.getByRole('button', { name: 'Inspect good' }).click();
    await expect.poll(text(page.getByTestId('agent-card')), POLL).toContain('secured agent');

    await page.getByRole('button', { name: 'Inspect down' }).click();
    await expect.poll(text(page.getByTestId('view-agents').getByTestId('error')), POLL).toMatch(/missive::transport::/);
    expect(await page.getByTestId('agent-card').count()).toBe(0);
    expect(await page.getByTestId('selected-interface').count()).toBe(0);
    expect(await page.getByTestId('card-warnings').count()).toBe(0);

    // A card that turns invalid after registration: inspect fails, and the card is shown as served with its issues.
    await page.getByRole('button', { name: 'Inspect changing' }).click();
    await expect.poll(text(page.getByTestId('agent-card')), POLL).toContain('Raw Agent');
    cardOk = false;
    await page.getByRole('button', { name: 'Fetch card again' }).click();
    await expect.poll(text(page.getByTestId('view-agents').getByTestId('error')), POLL).toContain('missive::protocol::invalid_card');
    expect(await page.getByTestId('agent-card').count()).toBe(0);
    await expect.poll(text(page.getByTestId('raw-card-json')), POLL).toContain('broken-later');
    expect(await page.getByTestId('raw-card-issue').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringMatching(/^supportedInterfaces/)]));
  });
});
