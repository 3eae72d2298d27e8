/**
 * Team mode in the web console (Chromium, the real handler registry, real SDK agents): two consoles of two
 * MISSIVE_HOMEs (two users, as on two hosts) on one PostgreSQL database. An agent registered in one console is in the
 * other's Agents view after a reload, with the health the first one's card fetch journaled, and "Refresh all" works
 * there; the Events view follows the shared journal live; a send from one user's terminal is in the other's History
 * and Contexts views; neither home gets a local SQLite file.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { startAgents } from '../support/agents.js';
import { CHROMIUM, POLL, readText, startGui, text, type Gui } from '../support/gui.js';
import { freshPostgresUrl, type FreshDatabase } from '../support/postgres.js';
import { startSecuredAgent } from '../support/secured-agent.js';
import pg from 'pg';

let db: FreshDatabase;
const boxes: Sandbox[] = [];
const guis: Gui[] = [];
let fleet: Awaited<ReturnType<typeof startAgents>> | undefined;

beforeAll(() => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM} (apt-get install chromium)`).toBe(true);
});
beforeEach(async () => {
  db = await freshPostgresUrl();
});
afterEach(async () => {
  const closing = await Promise.allSettled(guis.splice(0).map((g) => g.close()));
  boxes.splice(0).forEach((box) => box.dispose());
  await fleet?.close();
  fleet = undefined;
  await db.drop();
  // A console whose page logged errors fails here (startGui's close).
  for (const c of closing) if (c.status === 'rejected') throw c.reason;
});

/** A console of a new home whose store is the shared database. */
async function consoleOnSharedStore(env: Record<string, string> = {}): Promise<{ box: Sandbox; gui: Gui }> {
  const box = sandbox({ MISSIVE_STORE_URL: db.url, ...env });
  boxes.push(box);
  const gui = await startGui(box, { viewport: { width: 1280, height: 800 } });
  guis.push(gui);
  return { box, gui };
}

const sqliteFile = (box: Sandbox) => join(box.home, 'state/profiles/default/missive.sqlite3');

describe('two web consoles on one PostgreSQL store', () => {
  it("shows an agent registered in one console in the other, with its health, and one user's send in the other's History and Contexts", async () => {
    fleet = await startAgents({ echo: { behaviour: 'echo' } });
    const alice = await consoleOnSharedStore();
    const bob = await consoleOnSharedStore();
    const a = alice.gui.page;
    const b = bob.gui.page;

    // Bob's Agents view opens on the empty shared registry.
    await expect.poll(text(b.getByTestId('view-agents').getByTestId('empty')), POLL).toContain('No agents yet');
    // The demo agents live in a personal store only: a console on the shared one does not offer them.
    await expect.poll(text(b.getByTestId('view-agents').getByTestId('empty')), POLL).toContain('The demo agents run on a personal store only');
    expect(await b.getByTestId('start-demo').count()).toBe(0);

    // Alice registers the agent through the form: its card is fetched, the inspect panel opens on it.
    const form = a.getByTestId('agent-add-form');
    await form.locator('input[name=alias]').fill('echo');
    await form.locator('input[name=baseUrl]').fill(fleet.agents.echo!.baseUrl);
    await a.getByTestId('agent-register').click();
    await expect.poll(text(a.getByTestId('agent-card')), POLL).toContain('echo');
    await expect.poll(text(a.locator('[data-testid=agent-row][data-alias=echo]')), POLL).toContain(fleet.agents.echo!.baseUrl);

    // Bob reloads his console: the agent is there, and so is the health Alice's card fetch journaled.
    await b.reload();
    const row = b.locator('[data-testid=agent-row][data-alias=echo]');
    await expect.poll(text(row), POLL).toContain(fleet.agents.echo!.baseUrl);
    await expect
      .poll(
        () =>
          row
            .getByTestId('health')
            .getAttribute('data-state', { timeout: 250 })
            .catch(() => null),
        POLL,
      )
      .toBe('reachable');
    expect(await readText(row.getByTestId('card-age'))).toMatch(/card fetched/);

    // "Refresh all" runs on the shared store from Bob's console too.
    await b.getByTestId('refresh-all').click();
    await expect.poll(text(b.getByTestId('refresh-results')), POLL).toContain('1 of 1 refreshed');
    expect(await b.getByTestId('refresh-result').getAttribute('data-ok')).toBe('true');
    await bob.gui.shot('team-agents');

    // Alice sends from her terminal, to the same shared store: Bob's History and Contexts views show her exchange.
    const sent = await alice.box.run(['send', 'echo', 'hello team', '--json']);
    expect(sent.code).toBe(0);
    const contextId = sent.json().data.request.context_id ?? sent.json().data.response.message.contextId;
    await b.getByTestId('nav-history').click();
    const history = b.getByTestId('view-history');
    await expect.poll(text(history.getByTestId('history-row').first()), POLL).toContain('echo: hello team');
    expect(await history.getByTestId('error-code').count()).toBe(0);
    await b.getByTestId('nav-contexts').click();
    const contexts = b.getByTestId('view-contexts');
    await expect.poll(() => contexts.getByTestId('contexts-table').isVisible(), POLL).toBe(true);
    if (contextId) await expect.poll(text(contexts.getByTestId('contexts-table')), POLL).toContain(String(contextId).slice(0, 8));
    expect(await contexts.getByTestId('error-code').count()).toBe(0);
    await bob.gui.shot('team-history');
    // The store's password shows nowhere in Bob's console.
    expect(await b.content()).not.toContain(new URL(db.url).password);
    // Back on Agents, the view still works.
    await b.getByTestId('nav-agents').click();
    await expect.poll(text(row), POLL).toContain('echo');

    // Bob's Events view reads the shared journal, and follows it live: what Alice journals next shows up unasked.
    await b.getByTestId('nav-events').click();
    const events = b.getByTestId('view-events');
    await expect.poll(text(events.getByTestId('event-list')), POLL).toContain('missive.agent.added');
    expect((await alice.box.run(['agent', 'add', 'later', 'http://127.0.0.1:4999'])).code).toBe(0);
    await expect.poll(text(events.getByTestId('event-list')), POLL).toContain('later');

    for (const { box } of [alice, bob]) expect(existsSync(sqliteFile(box))).toBe(false);
  });

  it("asks before this host's credentials go to a shared agent whose row moved, and sends them only once confirmed", async () => {
    const real = await startSecuredAgent({ token: 'alice-token-of-the-real-one' });
    const evil = await startSecuredAgent();
    try {
      const alice = await consoleOnSharedStore({ SVC_TOKEN: 'alice-token-of-the-real-one' });
      expect((await alice.box.run(['auth', 'add', 'svc-token', '--env', 'SVC_TOKEN'])).code).toBe(0);
      expect((await alice.box.run(['agent', 'add', 'svc', real.baseUrl, '--auth-ref', 'svc-token'])).code).toBe(0);
      // A database user points the shared row at another server.
      const client = new pg.Client({ connectionString: db.url, options: '-c search_path=missive_default' });
      await client.connect();
      await client.query(`UPDATE agents SET base_url = $1, agent_card_json = NULL, agent_card_url = NULL WHERE alias = 'svc'`, [evil.baseUrl]);
      await client.end();

      const a = alice.gui.page;
      await a.reload();
      const row = a.locator('[data-testid=agent-row][data-alias=svc]');
      await expect.poll(text(row), POLL).toContain(evil.baseUrl);
      await row.getByRole('button', { name: 'Inspect svc' }).click();
      const view = a.getByTestId('view-agents');
      await expect.poll(text(view.getByTestId('error-code')), POLL).toContain('missive::auth::shared_agent_changed');
      expect(await readText(view.getByTestId('error-message'))).toContain(new URL(evil.baseUrl).origin);
      expect(evil.allRequests).toEqual([]);
      await alice.gui.shot('team-trust-prompt');

      await view.getByTestId('trust-confirm').click();
      await expect.poll(text(view.getByTestId('trust-confirmed')), POLL).toContain(`may go to ${new URL(evil.baseUrl).origin}`);
      await row.getByRole('button', { name: 'Inspect svc' }).click();
      await expect.poll(text(a.getByTestId('agent-card')), POLL).toContain('secured agent');
      expect(evil.allRequests.some((r) => r.authorization === 'Bearer alice-token-of-the-real-one')).toBe(true);
    } finally {
      await Promise.all([real.close(), evil.close()]);
    }
  });
});
