/** The desktop views in Chromium against real SDK agents, through the real handler registry and SQLite file. */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { CHROMIUM, POLL, startGui, text, type Gui } from '../support/gui.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
let gui: Gui;
const exportDir = mkdtempSync(join(tmpdir(), 'missive-gui-export-'));

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM} (apt-get install chromium)`).toBe(true);
  fleet = await startAgents({
    echo: { behaviour: 'echo' },
    tasks: { behaviour: 'task' },
    chunks: { behaviour: 'chunks', chunks: 4 },
    reducer: { behaviour: 'reducer' },
  });
});
afterAll(() => fleet.close());
beforeEach(async () => {
  box = sandbox();
  gui = await startGui(box, { chooseDirectory: () => exportDir });
});
afterEach(async () => {
  await gui.close();
  box.dispose();
});

const withDb = <T>(fn: (d: Database.Database) => T): T => readDb(box, fn);

describe('desktop views', () => {
  it('registers and inspects an agent', async () => {
    const { page } = gui;
    await expect.poll(text(page.getByTestId('empty')), POLL).toContain('No agents yet');
    await page.fill('input[name=alias]', 'echo');
    await page.fill('input[name=baseUrl]', fleet.agents.echo!.baseUrl);
    await page.click('button[type=submit]');
    await expect.poll(text(page.getByTestId('agents-table')), POLL).toContain('echo');
    await page.getByRole('button', { name: 'Inspect' }).click();
    await expect.poll(text(page.getByTestId('agent-card')), POLL).toContain('echo');
    await expect.poll(text(page.getByTestId('selected-interface')), POLL).toContain(`http+json ${fleet.agents.echo!.baseUrl}/a2a/rest · speaks A2A 1.0`);
    await expect.poll(text(page.getByTestId('card-format')), POLL).toContain('A2A 1.0');
    await expect.poll(text(page.getByTestId('credentials')), POLL).toContain('none configured');
    await expect.poll(text(page.getByTestId('interfaces').locator('[data-selected=true]')), POLL).toMatch(/^HTTP\+JSON\s+1\.0\s+\S+\/a2a\/rest\s/);
    await expect.poll(text(page.getByTestId('interfaces')), POLL).toContain(`${fleet.agents.echo!.baseUrl}/a2a/jsonrpc`);
    await expect.poll(text(page.getByTestId('agents-table')), POLL).not.toContain('not fetched');
    withDb((d) => expect(d.prepare(`SELECT alias, agent_card_json IS NOT NULL AS cached FROM agents`).all()).toEqual([{ alias: 'echo', cached: 1 }]));
    await gui.shot('agents');
  });

  it('shows a bad URL with its error code and keeps the form', async () => {
    const { page } = gui;
    await page.fill('input[name=alias]', 'broken');
    await page.fill('input[name=baseUrl]', 'ftp://example');
    await page.click('button[type=submit]');
    await expect.poll(text(page.getByTestId('error')), POLL).toContain('missive::validation::invalid_url');
    // The message and its code, not the CLI's exit code (meaningless in a window).
    expect(await page.getByTestId('error-message').innerText()).not.toBe('');
    expect(await page.getByTestId('error').innerText()).not.toMatch(/exit \d+/);
    expect(await page.inputValue('input[name=baseUrl]')).toBe('ftp://example');
    await gui.shot('error');
  });

  it('sends, then streams with a live timeline of artifact chunks', async () => {
    await register(box, { echo: fleet.agents.echo!, chunks: fleet.agents.chunks! });
    const { page } = gui;
    await page.getByTestId('nav-compose').click();
    await page.selectOption('select[name=agent]', 'echo');
    await page.fill('textarea[name=text]', 'hello from the GUI');
    writeFileSync(join(box.home, 'note.txt'), 'and a file part');
    await page.fill('input[name=files]', join(box.home, 'note.txt'));
    await page.getByTestId('send').click();
    await expect.poll(text(page.getByTestId('answer')), POLL).toBe('echo: hello from the GUI\nand a file part');
    await page.fill('input[name=files]', '');
    await page.selectOption('select[name=agent]', 'chunks');
    await page.selectOption('select[name=mode]', 'stream');
    await page.fill('textarea[name=text]', 'a story');
    await page.getByTestId('send').click();
    await expect.poll(text(page.getByTestId('send-result')), POLL).toContain('7 events');
    const items = page.getByTestId('timeline').locator('li');
    await expect.poll(() => items.count(), POLL).toBe(7);
    await expect.poll(text(items.nth(5)), POLL).toContain('result v4 ✓');
    withDb((d) =>
      expect(
        (
          d
            .prepare(
              `SELECT count(*) AS n FROM events WHERE event_type LIKE 'a2a.stream.%' AND event_type NOT IN ('a2a.stream.started', 'a2a.stream.completed', 'a2a.stream.failed')`,
            )
            .get() as any
        ).n,
      ).toBe(7),
    );
    await gui.shot('compose-stream');
  });

  it('creates a group, runs a round and shows per-member rows and the reduced text', async () => {
    await register(box, fleet.agents);
    const { page } = gui;
    await page.getByTestId('nav-collectives').click();
    await page.fill('input[name=group-name]', 'team');
    await page.fill('input[name=group-members]', 'echo tasks chunks');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.selectOption('select[name=reducer]', 'reducer');
    await page.fill('input[name=collective-text]', 'plan the launch');
    await page.getByTestId('run-collective').click();
    await expect.poll(text(page.getByTestId('collective-status')), POLL).toBe('status: succeeded');
    const rows = page.getByTestId('members-table').locator('tbody tr');
    await expect.poll(() => rows.count(), POLL).toBe(3);
    await expect.poll(text(rows.nth(1)), POLL).toContain('tasks');
    await expect.poll(text(rows.nth(1)), POLL).toContain('completed');
    await expect.poll(text(page.getByTestId('reduced')), POLL).toContain('Reduced 3 input(s):');
    await expect.poll(text(page.getByTestId('reduced')), POLL).toContain('1 tasks: gathered');
    withDb((d) => expect(d.prepare(`SELECT count(*) AS n FROM messages WHERE direction = 'local'`).get()).toEqual({ n: 1 }));
    await gui.shot('collectives-round');
  });

  it('exports an artifact through the directory picker', async () => {
    await register(box, { tasks: fleet.agents.tasks! });
    await box.run(['send', 'tasks', 'make a file']);
    const { page } = gui;
    await page.getByTestId('nav-tasks').click();
    await page.getByTestId('tasks-table').locator('tbody tr').first().click();
    await expect.poll(text(page.getByTestId('task-detail')), POLL).toContain('result (result.txt) v1');
    // A completed task is final: no Wait, no Cancel (issue 35).
    await expect.poll(text(page.getByTestId('task-detail').getByTestId('followed-state')), POLL).toBe('completed');
    expect(
      await page
        .getByTestId('task-detail')
        .getByRole('button', { name: /^(Wait for|Cancel) task/ })
        .count(),
    ).toBe(0);
    await page.getByRole('button', { name: 'Choose…' }).click();
    await expect.poll(() => page.locator('input[name=export-dir]').inputValue(), POLL).toBe(exportDir);
    await page.getByTestId('export').click();
    await expect.poll(text(page.getByTestId('exported')), POLL).toContain('result.txt');
    expect(readdirSync(exportDir).sort()).toEqual(['manifest.json', 'result.txt']);
    await gui.shot('tasks-export');
  });

  it('filters the journal, follows new events live, and starts the demo in one click', async () => {
    const { page } = gui;
    await page.getByTestId('start-demo').click();
    await expect.poll(() => page.getByTestId('agents-table').locator('tbody tr').count(), POLL).toBe(5);
    await box.run(['send', 'demo-echo', 'one']);
    await page.getByTestId('nav-events').click();
    await page.fill('input[name=event-type]', 'a2a.send');
    const sends = () => withDb((d) => (d.prepare(`SELECT count(*) AS n FROM events WHERE event_type LIKE '%a2a.send%'`).get() as any).n);
    await expect.poll(text(page.getByTestId('event-count')), POLL).toBe(`${sends()} event(s)`);
    await box.run(['send', 'demo-echo', 'two']);
    await expect.poll(text(page.getByTestId('event-count')), POLL).toBe(`${sends()} event(s)`);
    await gui.shot('events');
    await page.getByTestId('nav-settings').click();
    await expect.poll(text(page.getByTestId('app-info')), POLL).toContain(join(box.home, 'state/profiles/default/missive.sqlite3'));
  });
});
