/**
 * The operator views in Chromium at 1280×800 and 900×600, against real SDK agents through the real handler registry
 * and SQLite file: Events (search, expandable redacted payloads, the capped live tail), Tasks (clickable rows, local
 * times, wait and cancel from the row), Contexts (the thread), Collectives (members and health before a run, full
 * operation labels), Agents (refresh all, health, the interface table), Settings (the receiver's real state), and
 * no horizontal overflow in any view at 900 px.
 */
import { createServer, type Server } from 'node:net';
import { hostname, userInfo } from 'node:os';
import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { closedPortUrl, register, startAgents } from '../support/agents.js';
import { CHROMIUM, POLL, startGui, text, type Gui } from '../support/gui.js';
import { json, startRawServer } from '../support/raw-server.js';
import { appendEvent } from '../../electron/core/store/repos/events.js';
import { withActor } from '../../electron/core/store/actor.js';
import { sqliteStore } from '../support/sqlite-store.js';

const DESKTOP = { width: 1280, height: 800 };
const SMALL = { width: 900, height: 600 };

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
let gui: Gui | undefined;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM} (apt-get install chromium)`).toBe(true);
  fleet = await startAgents({
    echo: { behaviour: 'echo' },
    tasks: { behaviour: 'task' },
    quick: { behaviour: 'slow', delayMs: 1500 },
    stuck: { behaviour: 'slow', delayMs: 120_000 },
  });
});
afterAll(() => fleet.close());
afterEach(async () => {
  await gui?.close();
  gui = undefined;
  box.dispose();
});

/** A fresh sandbox and the GUI on it at `viewport`. */
async function open(viewport = DESKTOP, env: NodeJS.ProcessEnv = {}): Promise<Gui> {
  box = sandbox(env);
  gui = await startGui(box, { viewport });
  return gui;
}

const withDb = <T>(fn: (d: Database.Database) => T): T => readDb(box, fn);
const count = (sql: string, ...params: unknown[]) => withDb((d) => (d.prepare(sql).get(...params) as { n: number }).n);

/** Whether the page or the content pane scrolls sideways (neither may at any width the app supports). */
const overflow = (g: Gui) =>
  g.page.evaluate(() => {
    const content = document.querySelector('.content') as HTMLElement;
    return { page: document.documentElement.scrollWidth - window.innerWidth, content: content.scrollWidth - content.clientWidth };
  });

describe('operator views', () => {
  it('Events: a search finds a payload word, a row opens to its redacted payload, the live tail stays at its cap', async () => {
    const { page, core } = await open();
    await register(box, { echo: fleet.agents.echo! });
    const sent = (await box.run(['send', 'echo', 'the zephyr crossed the bay', '--json'])).json().data;
    const messageId: string = sent.request.message_id;
    const db = (await sqliteStore(core)).db;
    appendEvent(db, {
      type: 'ops.note',
      source: 'test',
      payload: { note: 'vault rotation', headers: { Authorization: 'Bearer sekrit-vault-123' }, api_key: 'k-vault-999' },
    });
    // An event another host's gateway wrote to the journal.
    withActor({ host: 'build-2.example', user: 'bob', id: 'build-2.example/bob/gw1' }, () =>
      appendEvent(db, { type: 'ops.remote', source: 'gateway', payload: { note: 'from afar' } }),
    );

    await page.getByTestId('nav-events').click();
    const all = () => count(`SELECT count(*) AS n FROM events`);
    await expect.poll(text(page.getByTestId('event-count')), POLL).toBe(`${all()} event(s)`);

    // Search runs in the core: the send's message id, a word of two payloads, finds its started and completed rows.
    await page.fill('input[name=event-search]', messageId.toUpperCase());
    expect(count(`SELECT count(*) AS n FROM events WHERE payload_json LIKE ?`, `%${messageId}%`)).toBe(2);
    await expect.poll(text(page.getByTestId('event-count')), POLL).toBe('2 event(s)');
    await expect.poll(text(page.getByTestId('event-list')), POLL).toContain('a2a.send.started');
    expect(await page.getByTestId('event-list').innerText()).toContain('a2a.send.completed');

    // A row opens to its payload: the secrets were redacted before they reached the journal.
    await page.fill('input[name=event-search]', 'vault rotation');
    await expect.poll(text(page.getByTestId('event-count')), POLL).toBe('1 event(s)');
    const row = page.getByTestId('event-list').locator('button.event-row');
    expect(await row.getAttribute('aria-expanded')).toBe('false');
    await row.click();
    await expect.poll(text(page.getByTestId('event-detail')), POLL).toContain('[REDACTED]');
    const detail = await page.getByTestId('event-detail').innerText();
    expect(detail).toContain('vault rotation');
    expect(detail).toMatch(/Source\s+test/);
    expect(detail).not.toContain('sekrit-vault-123');
    expect(detail).not.toContain('k-vault-999');
    expect(await row.getAttribute('aria-expanded')).toBe('true');
    // Who wrote it: the row says user@host, the detail the host, the OS user and the actor id.
    const here = `${userInfo().username}@${hostname()}`;
    expect(await row.innerText()).toContain(here);
    expect(detail).toContain(`Host\n${hostname()}`);
    expect(detail).toContain(`User\n${userInfo().username}`);
    expect(detail).toContain(`Actor\ntest:${process.pid}`);
    // The User field keeps one OS user's events (read by the core: events.query actorUser).
    await page.fill('input[name=event-search]', '');
    await page.fill('input[name=event-user]', 'bob');
    await expect.poll(text(page.getByTestId('event-list')), POLL).toMatch(/ops\.remote[\s\S]*bob@build-2\.example/);
    expect(await text(page.getByTestId('event-count'))()).toBe('1 event(s)');
    await page.fill('input[name=event-user]', '');
    expect(count(`SELECT count(*) AS n FROM events WHERE payload_json LIKE '%sekrit%' OR payload_json LIKE '%k-vault-999%'`)).toBe(0);
    // The timestamp column shows local time, the ISO time in its title.
    const stamp = page.getByTestId('event-list').locator('time').first();
    expect(await stamp.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    await gui!.shot('events');

    // The live tail: 6,000 new rows arrive; the list keeps the newest 5,000 of them and says how many it dropped.
    await page.fill('input[name=event-search]', '');
    const before = all();
    await expect.poll(text(page.getByTestId('event-count')), POLL).toBe(`${before} event(s)`);
    (await sqliteStore(core)).transaction(() => {
      for (let i = 0; i < 6000; i++) appendEvent(db, { type: 'ops.tick', source: 'test', payload: { i } });
    });
    await expect.poll(text(page.getByTestId('tail-dropped')), POLL).toMatch(/^1[,.\u202f\u00a0]?000 older live row\(s\) dropped/);
    await expect.poll(text(page.getByTestId('event-count')), POLL).toBe(`${before + 5000} event(s)`);
    expect(all()).toBe(before + 6000);
    // Reload reads the journal again: everything is back and nothing is dropped.
    await page.getByTestId('tail-dropped').getByRole('button', { name: 'Reload' }).click();
    await expect.poll(text(page.getByTestId('event-count')), POLL).toBe(`${before + 6000} event(s)`);
    expect(await page.getByTestId('tail-dropped').count()).toBe(0);
  });

  it('Tasks: rows look and act clickable, show local times, and wait or cancel from the row', async () => {
    const { page } = await open();
    await register(box, { quick: fleet.agents.quick!, stuck: fleet.agents.stuck! });
    const quick = (await box.run(['send', 'quick', 'soon done', '--return-immediately', '--json'])).json().data.task;
    const stuck = (await box.run(['send', 'stuck', 'never done', '--return-immediately', '--json'])).json().data.task;
    expect(['submitted', 'working']).toContain(quick.state);
    await page.getByTestId('nav-tasks').click();
    const rowOf = (id: string) => page.getByTestId('tasks-table').locator('tbody tr', { hasText: id });
    await expect.poll(() => rowOf(quick.task_id).count(), POLL).toBe(1);
    expect(await rowOf(quick.task_id).evaluate((tr) => getComputedStyle(tr).cursor)).toBe('pointer');
    const updated = rowOf(quick.task_id).locator('time');
    expect(await updated.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await updated.innerText()).toMatch(/just now|s ago/);
    await gui!.shot('tasks');

    // Keyboard: the row's task id is a button; Enter opens the task.
    await rowOf(stuck.task_id)
      .getByRole('button', { name: `Open task ${stuck.task_id}` })
      .focus();
    await page.keyboard.press('Enter');
    await expect.poll(text(page.getByTestId('task-detail')), POLL).toContain(stuck.task_id);

    // Cancel from the row.
    await rowOf(stuck.task_id)
      .getByRole('button', { name: `Cancel task ${stuck.task_id}` })
      .click();
    await expect.poll(text(rowOf(stuck.task_id).getByTestId('row-outcome')), POLL).toBe('cancel: cancelled');
    await expect.poll(text(rowOf(stuck.task_id).getByTestId('task-state')), POLL).toBe('cancelled');
    expect(
      await rowOf(stuck.task_id)
        .getByRole('button', { name: /Cancel task/ })
        .count(),
    ).toBe(0);
    withDb((d) => expect(d.prepare(`SELECT state FROM tasks WHERE task_id = ?`).get(stuck.task_id)).toEqual({ state: 'cancelled' }));

    // Wait from the row: it follows the task to its end.
    await rowOf(quick.task_id)
      .getByRole('button', { name: `Wait for task ${quick.task_id}` })
      .click();
    await expect.poll(text(rowOf(quick.task_id).getByTestId('row-outcome')), POLL).toBe('waited: completed');
    await expect.poll(text(rowOf(quick.task_id).getByTestId('task-state')), POLL).toBe('completed');
    withDb((d) => expect(d.prepare(`SELECT state FROM tasks WHERE task_id = ?`).get(quick.task_id)).toEqual({ state: 'completed' }));
  });

  it('Contexts: opening a context reads its conversation as a thread with the artifact', async () => {
    const { page } = await open();
    await register(box, { echo: fleet.agents.echo!, tasks: fleet.agents.tasks! });
    await page.getByTestId('nav-contexts').click();
    await page.fill('input[name=context-name]', 'launch');
    await page.getByRole('button', { name: 'Create context' }).click();
    await expect.poll(text(page.getByTestId('contexts-table')), POLL).toContain('launch');
    const contextId = withDb((d) => (d.prepare(`SELECT context_id FROM contexts WHERE name = 'launch'`).get() as { context_id: string }).context_id);
    expect((await box.run(['send', 'echo', 'what is the plan?', '--context', 'launch'])).code).toBe(0);
    expect((await box.run(['send', 'tasks', 'write the plan down', '--context', 'launch'])).code).toBe(0);
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    // The row shows the id shortened (whole in its title), under the name and first message.
    const row = page
      .getByTestId('contexts-table')
      .locator('tbody tr')
      .filter({ has: page.locator(`.cell-id[title="${contextId}"]`) });
    await expect.poll(() => row.count(), POLL).toBe(1);
    await row.getByRole('button', { name: /^Open context/ }).click();
    const thread = page.getByTestId('context-thread');
    await expect.poll(text(thread), POLL).toContain('write the plan down');
    const messages = thread.getByTestId('thread-message');
    const said = await messages.allInnerTexts();
    expect(said.some((m) => m.includes('what is the plan?'))).toBe(true);
    expect(said.some((m) => m.includes('echo: what is the plan?'))).toBe(true);
    expect(await thread.locator('[data-side=out]').count()).toBeGreaterThanOrEqual(2);
    expect(await thread.locator('[data-side=in]').count()).toBeGreaterThanOrEqual(1);
    const artifact = thread.getByTestId('thread-artifact');
    await expect.poll(() => artifact.count(), POLL).toBe(1);
    const artifactRow = withDb((d) =>
      d
        .prepare(`SELECT artifact_id, name FROM artifacts WHERE context_id = ? OR task_id IN (SELECT task_id FROM tasks WHERE context_id = ?)`)
        .get(contextId, contextId),
    ) as { artifact_id: string; name: string };
    expect(await artifact.innerText()).toContain(artifactRow.name);
    // Oldest first: the question comes before the artifact it led to.
    const order = await thread.locator('.thread-item').allInnerTexts();
    expect(order.findIndex((t) => t.includes('what is the plan?'))).toBeLessThan(order.findIndex((t) => t.includes(artifactRow.name)));
    await gui!.shot('context-thread');
  });

  it('Collectives: the picked group shows its members and their health before a run; operation labels are whole at 900 px', async () => {
    const { page } = await open(SMALL);
    await register(box, { echo: fleet.agents.echo!, tasks: fleet.agents.tasks! });
    expect((await box.run(['agent', 'add', 'gone', await closedPortUrl()])).code).toBe(0);
    expect((await box.run(['group', 'create', 'crew', '--member', 'echo', '--member', 'tasks', '--member', 'gone'])).code).toBe(0);
    await page.getByTestId('nav-collectives').click();
    const members = page.getByTestId('group-members').getByTestId('group-member');
    await expect.poll(() => members.count(), POLL).toBe(3);
    await expect.poll(text(members.nth(0)), POLL).toMatch(/^0\s+echo\s+● reachable ok /);
    await expect.poll(text(members.nth(1)), POLL).toMatch(/^1\s+tasks\s+● reachable ok /);
    await expect.poll(text(members.nth(2)), POLL).toMatch(/^2\s+gone\s+○ never contacted/);
    expect(withDb((d) => d.prepare(`SELECT count(*) AS n FROM events WHERE event_type LIKE 'missive.bcast%' OR event_type LIKE 'a2a.send%'`).get())).toEqual({
      n: 0,
    });
    // Checking the members fetches their cards now: the dead one says why.
    await page.getByRole('button', { name: 'Check members' }).click();
    await expect.poll(text(members.nth(2)), POLL).toMatch(/^2\s+gone\s+● unreachable missive::transport::\S+ (just now|\d+ s ago)$/);
    // Every operation's label is shown whole, none cut off.
    const options = page.getByTestId('operation-picker').locator('label');
    expect(await options.allInnerTexts()).toEqual([
      'round bcast → barrier → gather → reduce, in one go',
      'bcast send the message to every member',
      'barrier wait until every member’s task has ended',
      'gather collect what each member produced',
      'reduce combine the gathered outputs into one answer',
    ]);
    const cut = await options.evaluateAll(
      (labels) => labels.filter((l) => l.scrollWidth > l.clientWidth || l.getBoundingClientRect().right > window.innerWidth).length,
    );
    expect(cut).toBe(0);
    await page.getByTestId('operation-picker').getByText('bcast', { exact: true }).click();
    await expect.poll(text(page.getByTestId('run-collective')), POLL).toBe('Run bcast');
    expect(await overflow(gui!)).toEqual({ page: 0, content: 0 });
    await gui!.shot('collectives-members');
  });

  it('Agents: refresh all with one agent down shows its failure; the health column tells reachable, unreachable and never contacted apart', async () => {
    const { page } = await open();
    await register(box, { echo: fleet.agents.echo! });
    expect((await box.run(['agent', 'add', 'down', await closedPortUrl()])).code).toBe(0);
    await page.reload();
    const rowOf = (alias: string) => page.getByTestId('agents-table').locator('tbody tr', { hasText: alias });
    const healthOf = (alias: string) => rowOf(alias).getByTestId('agent-health').getByTestId('health');
    await expect.poll(text(healthOf('echo')), POLL).toMatch(/^● reachable ok (just now|\d+ s ago)$/);
    await expect.poll(text(healthOf('down')), POLL).toBe('○ never contacted');
    expect(await rowOf('down').getByTestId('card-age').innerText()).toBe('card never fetched');
    expect(await rowOf('echo').getByTestId('card-age').innerText()).toMatch(/^card fetched (just now|\d+ s ago)$/);
    // Placeholders read as examples, not as values.
    expect(await page.getAttribute('input[name=alias]', 'placeholder')).toMatch(/^e\.g\. /);
    expect(await page.getAttribute('input[name=baseUrl]', 'placeholder')).toBe('e.g. https://agent.example.com');

    await page.getByTestId('refresh-all').click();
    const results = page.getByTestId('refresh-results');
    await expect.poll(text(results), POLL).toContain('1 of 2 refreshed, 1 failed');
    const failed = results.locator('[data-ok=false]');
    expect(await failed.count()).toBe(1);
    expect(await failed.innerText()).toMatch(/✗ down \d+ ms missive::transport::/);
    expect(await results.locator('[data-ok=true]').innerText()).toMatch(/✓ echo \d+ ms/);
    await expect.poll(text(healthOf('down')), POLL).toMatch(/^● unreachable missive::transport::\S+ (just now|\d+ s ago)$/);
    await expect.poll(text(healthOf('echo')), POLL).toMatch(/reachable/);
    withDb((d) =>
      expect((d.prepare(`SELECT count(*) AS n FROM events WHERE event_type = 'a2a.agent_card.failed' AND agent_alias = 'down'`).get() as any).n).toBe(1),
    );

    // The inspect panel's interface table: what the card declares, which one was selected, where credentials go.
    await page.getByRole('button', { name: 'Inspect echo' }).click();
    const rows = page.getByTestId('interfaces').getByTestId('interface-row');
    // HTTP+JSON and JSON-RPC for 1.0, then the same URLs for v0.3 clients (the embedded agent serves both).
    await expect.poll(() => rows.count(), POLL).toBe(4);
    const selected = page.getByTestId('interfaces').locator('[data-selected=true]');
    expect(await selected.innerText()).toMatch(
      new RegExp(`HTTP\\+JSON\\s+1\\.0\\s+${fleet.agents.echo!.baseUrl}/a2a/rest\\s+none configured\\s+selected · speaks A2A 1\\.0`),
    );
    expect(await page.getByTestId('interfaces').locator('caption').innerText()).toContain('Not probed');
    await gui!.shot('agents-health');
  });

  it('Agents: the interface table says where pinned credentials go', async () => {
    const { page } = await open(DESKTOP, { GUI_TEST_TOKEN: 'tok-gui-secret-0123' });
    // Another origin (port) publishes echo's card: its interfaces are on echo's origin, not on the registered one.
    const publisher = await startRawServer();
    publisher.route('/.well-known/agent-card.json', (_req, res) => json(res, 200, fleet.agents.echo!.card));
    try {
      expect((await box.run(['auth', 'add', 'tok', '--env', 'GUI_TEST_TOKEN'])).code).toBe(0);
      expect((await box.run(['agent', 'add', 'pinned', publisher.url, '--auth-ref', 'tok'])).code).toBe(0);
      expect(
        (await box.run(['agent', 'add', 'trusted', publisher.url, '--auth-ref', 'tok', '--trust-origin', new URL(fleet.agents.echo!.baseUrl).origin])).code,
      ).toBe(0);
      await page.reload();
      const rows = page.getByTestId('interfaces').getByTestId('interface-row');
      await page.getByRole('button', { name: 'Inspect pinned' }).click();
      await expect.poll(text(page.getByTestId('agent-card')), POLL).toContain('pinned');
      await expect.poll(() => rows.count(), POLL).toBe(4);
      for (const t of await rows.allInnerTexts()) expect(t).toContain('refused: calls fail (other origin)');
      expect(await page.getByTestId('credentials').innerText()).toContain('are refused');

      await page.getByRole('button', { name: 'Inspect trusted' }).click();
      await expect.poll(text(page.getByTestId('credentials')), POLL).toContain('sent (same origin)');
      for (const t of await rows.allInnerTexts()) expect(t).toContain('sent (pinned origin)');
      expect(await page.getByTestId('view-agents').innerText()).not.toContain('tok-gui-secret-0123');
    } finally {
      await publisher.close();
    }
  });

  it('Settings: start and stop follow the real receiver; a failed start shows the error and stays stopped', async () => {
    const { page, registry } = await open();
    const status = async () => ((await registry.invoke('webhook.status', {})) as any).data;
    await page.getByTestId('nav-settings').click();
    await expect.poll(text(page.getByTestId('webhook-status')), POLL).toBe('stopped');
    expect(await page.getByTestId('webhook-stop').isDisabled()).toBe(true);

    await page.getByTestId('webhook-start').click();
    await expect.poll(async () => (await status()).listening, POLL).toBe(true);
    const url = (await status()).url as string;
    await expect.poll(text(page.getByTestId('webhook-status')), POLL).toBe(`listening on ${url} · 0 accepted · 0 rejected`);
    expect(await page.getByTestId('webhook-start').isDisabled()).toBe(true);

    // Stopped behind the view's back (the tray does this): the view follows the receiver, not its own last click.
    await registry.invoke('webhook.stop', {});
    await expect.poll(text(page.getByTestId('webhook-status')), POLL).toBe('stopped');

    // A port that is taken: the start fails, says why, and the receiver stays stopped.
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as { port: number }).port;
      await page.fill('input[name=webhook-port]', String(port));
      await page.getByTestId('webhook-start').click();
      await expect.poll(text(page.getByTestId('error')), POLL).toContain('port_in_use');
      expect((await status()).listening).toBe(false);
      await expect.poll(text(page.getByTestId('webhook-status')), POLL).toBe('stopped');
    } finally {
      await new Promise((r) => taken.close(r));
    }

    await page.fill('input[name=webhook-port]', '0');
    await page.getByTestId('webhook-start').click();
    await expect.poll(text(page.getByTestId('webhook-status')), POLL).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+/);
    await page.getByTestId('webhook-stop').click();
    await expect.poll(text(page.getByTestId('webhook-status')), POLL).toBe('stopped');
    expect((await status()).listening).toBe(false);
  });

  it('fits 900×600: no view scrolls sideways, with real data in every table', async () => {
    const { page, core } = await open(SMALL);
    await register(box, { echo: fleet.agents.echo!, tasks: fleet.agents.tasks! });
    const sent = (await box.run(['send', 'tasks', 'a long enough request to fill a row', '--json'])).json().data;
    expect((await box.run(['group', 'create', 'crew', '--member', 'echo', '--member', 'tasks'])).code).toBe(0);
    appendEvent((await sqliteStore(core)).db, {
      type: 'a2a.stream.artifact_update.with-a-rather-long-event-type-name',
      source: 'test',
      taskId: sent.task?.task_id ?? null,
      payload: { text: 'x'.repeat(400) },
    });
    await page.reload();
    await page.getByRole('button', { name: 'Inspect echo' }).click();
    await page.getByTestId('interfaces').waitFor();

    const views = await page.locator('[data-testid^=nav-]').evaluateAll((navs) => navs.map((n) => n.getAttribute('data-testid')!.slice(4)));
    expect(views).toEqual(expect.arrayContaining(['agents', 'collectives', 'tasks', 'events', 'contexts', 'settings']));
    for (const view of views) {
      await page.getByTestId(`nav-${view}`).click();
      await page.getByTestId(`view-${view}`).waitFor();
      if (view === 'events') {
        await page.getByTestId('event-list').locator('button.event-row').last().click();
        await page.getByTestId('event-detail').waitFor();
        await gui!.shot('events-900');
      }
      if (view === 'tasks') await page.getByTestId('tasks-table').locator('tbody tr').first().click();
      if (view === 'contexts') {
        await page
          .getByTestId('contexts-table')
          .getByRole('button', { name: /^Open context/ })
          .first()
          .click();
        await page.getByTestId('thread').waitFor();
      }
      expect({ view, ...(await overflow(gui!)) }).toEqual({ view, page: 0, content: 0 });
    }
  });
});
