/**
 * Groups & collectives in Chromium, through the web console, against real SDK agents and the real SQLite file: each
 * member's answer (text, an artifact, a failed member's error) behind "Show answer"; the failure policy, quorum and
 * timeout options reaching the core (the result and the journal say so); the live progress line moving while a slow
 * member works; and a group edited (members, ranks, policy, notes) and deleted, as SQLite and `groups.list` see it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { CHROMIUM, POLL, startGui, readText, text, type Gui } from '../support/gui.js';

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
    broken: { behaviour: 'fail' },
    slow: { behaviour: 'slow', delayMs: 3000 },
  });
});
afterAll(() => fleet.close());
afterEach(async () => {
  await gui?.close();
  gui = undefined;
  box.dispose();
});

/** A fresh sandbox with `agents` registered and `group` made of `members` (CLI), and the GUI on Collectives. */
async function open(members: string[], viewport = DESKTOP): Promise<Page> {
  box = sandbox();
  const aliases = [...new Set(members.map((m) => m.split('@')[0]!))];
  await register(box, Object.fromEntries(aliases.map((a) => [a, fleet.agents[a]!])));
  expect((await box.run(['group', 'create', 'crew', ...members.flatMap((m) => ['--member', m])])).code).toBe(0);
  gui = await startGui(box, { viewport });
  await gui.page.getByTestId('nav-collectives').click();
  await expect.poll(() => gui!.page.getByTestId('group-members').getByTestId('group-member').count(), POLL).toBe(members.length);
  return gui.page;
}

const withDb = <T>(fn: (d: Database.Database) => T): T => readDb(box, fn);
/** The payloads of the journal's events of `type`, oldest first. */
const payloads = (type: string) =>
  withDb((d) =>
    (d.prepare(`SELECT payload_json FROM events WHERE event_type = ? ORDER BY sequence`).all(type) as Array<{ payload_json: string }>).map((r) =>
      JSON.parse(r.payload_json),
    ),
  );
const row = (page: Page, alias: string) => page.locator(`[data-testid=member-row][data-member=${alias}]`);
const answer = (page: Page, alias: string) => page.locator(`[data-testid=member-answer][data-member=${alias}]`);
const status = (page: Page) => text(page.getByTestId('collective-status'));

/** axe-core's critical and serious violations on the page as it is, in `theme` (its source evaluated as a11y.test.ts does). */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
async function blockingViolations(page: Page, theme: 'dark' | 'light'): Promise<string[]> {
  await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const result = await (
      window as unknown as {
        axe: { run(d: Document, o: object): Promise<{ violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: string[] }> }> }> };
      }
    ).axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'critical' || v.impact === 'serious')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

async function runRound(page: Page, message: string) {
  await page.fill('input[name=collective-text]', message);
  await page.getByTestId('run-collective').click();
}

describe('Groups & collectives', () => {
  it("a round's members each show their answer when expanded: text, an artifact, and the failed member's error (900 px, no sideways scroll)", async () => {
    const page = await open(['echo', 'tasks', 'broken'], SMALL);
    await runRound(page, 'review the plan');
    await expect.poll(status(page), POLL).toBe('status: partial');
    await expect.poll(text(row(page, 'broken')), POLL).toContain('failed');
    // Answers stay folded until asked for.
    expect(await page.getByTestId('member-answer').count()).toBe(0);

    await row(page, 'tasks').getByRole('button', { name: 'Show answer of tasks' }).click();
    await expect.poll(text(answer(page, 'tasks').getByTestId('member-text')), POLL).toBe('done: review the plan');
    const artifact = answer(page, 'tasks').getByTestId('member-artifact');
    await expect.poll(text(artifact), POLL).toContain('result.txt');
    await expect.poll(text(artifact), POLL).toContain('result for: review the plan');

    await row(page, 'echo').getByRole('button', { name: 'Show answer of echo' }).click();
    await expect.poll(text(answer(page, 'echo').getByTestId('member-text')), POLL).toBe('echo: review the plan');

    await row(page, 'broken').getByRole('button', { name: 'Show answer of broken' }).click();
    const failed = answer(page, 'broken');
    await expect.poll(text(failed.getByTestId('member-error')), POLL).toContain('the agent answered with a failed task');
    expect(await failed.getByTestId('member-error').innerText()).toContain('missive::orchestration::task_failed');
    await expect.poll(text(failed.getByTestId('member-text')), POLL).toBe('cannot do: review the plan');

    // Folding one answer back hides it again.
    await row(page, 'echo').getByRole('button', { name: 'Hide answer of echo' }).click();
    await expect.poll(() => answer(page, 'echo').count(), POLL).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    expect(
      await page.evaluate(
        () => (document.querySelector('.content') as HTMLElement).scrollWidth - (document.querySelector('.content') as HTMLElement).clientWidth,
      ),
    ).toBeLessThanOrEqual(0);
    // Answers open and the group editor open: axe finds nothing critical or serious in either theme.
    await page.getByTestId('group-editor').locator('summary').click();
    expect(await blockingViolations(page, 'light')).toEqual([]);
    expect(await blockingViolations(page, 'dark')).toEqual([]);
    await gui!.shot('collectives-answers');
  });

  it('the failure policy decides: continue sends to every member, fail-fast skips the rest after the first failure', async () => {
    const page = await open(['broken', 'echo']);
    await page.selectOption('select[name=execution]', 'sequential');
    await runRound(page, 'first try');
    await expect.poll(status(page), POLL).toBe('status: partial');
    await expect
      .poll(text(page.getByTestId('collective-bcast')), POLL)
      .toContain('failure policy continue · sequential · 1 succeeded, 1 failed, 0 timed out, 0 skipped');
    expect(await row(page, 'echo').innerText()).toContain('succeeded');

    await page.getByTestId('collective-options').getByLabel('fail-fast').check();
    await runRound(page, 'second try');
    await expect.poll(status(page), POLL).toBe('status: failed');
    await expect
      .poll(text(page.getByTestId('collective-bcast')), POLL)
      .toContain('failure policy fail-fast · sequential · 0 succeeded, 1 failed, 0 timed out, 1 skipped');
    expect(await row(page, 'echo').innerText()).toContain('skipped');
    expect(await readText(page.getByTestId('collective-progress'))).toBe('2 members: 0 done · 0 running · 1 failed · 1 skipped');
    // The core ran each round with the policy the form named; echo was never sent the second message.
    expect(payloads('missive.bcast.started').map((p) => [p.failure_policy, p.execution])).toEqual([
      ['continue', 'sequential'],
      ['stop', 'sequential'],
    ]);
    expect(
      withDb((d) => d.prepare(`SELECT count(*) AS n FROM events WHERE event_type = 'missive.bcast.member.skipped' AND agent_alias = 'echo'`).get()),
    ).toEqual({ n: 1 });
    expect(withDb((d) => d.prepare(`SELECT count(*) AS n FROM messages WHERE direction = 'request' AND agent_alias = 'echo'`).get())).toEqual({ n: 1 });
  });

  it('quorum and timeout reach the core: the slow member times out at the deadline and the barrier waits for a quorum of 1', async () => {
    const page = await open(['echo', 'tasks', 'slow']);
    await page.fill('input[name=quorum]', '1');
    await page.fill('input[name=timeout]', '1');
    const started = Date.now();
    await runRound(page, 'quick look');
    await expect.poll(status(page), POLL).toBe('status: partial');
    // Well before the slow member's 3 s: the 1 s deadline ended its send.
    expect(Date.now() - started).toBeLessThan(3000);
    await expect.poll(text(row(page, 'slow')), POLL).toContain('timeout');
    expect(await readText(page.getByTestId('collective-quorum'))).toBe('barrier succeeded · quorum 1 of 3 · 2 satisfied');
    await row(page, 'slow').getByRole('button', { name: 'Show answer of slow' }).click();
    await expect.poll(text(answer(page, 'slow').getByTestId('member-error')), POLL).toContain('missive::transport::timeout');
    expect(payloads('missive.barrier.started').map((p) => p.required)).toEqual([1]);
    expect(withDb((d) => d.prepare(`SELECT agent_alias FROM events WHERE event_type = 'missive.bcast.member.timeout'`).all())).toEqual([
      { agent_alias: 'slow' },
    ]);
  });

  it('live progress: the counts move while the slow member works, then settle when the round ends', async () => {
    const page = await open(['echo', 'tasks', 'slow']);
    await runRound(page, 'take your time');
    const progress = text(page.getByTestId('collective-progress'));
    // While the slow member still works: the others are done, it is running, and no outcome is shown yet.
    await expect.poll(progress, POLL).toBe('Running — 3 members: 2 done · 1 running · 0 failed');
    expect(await readText(row(page, 'slow'))).toContain('running');
    expect(await page.getByTestId('collective-status').count()).toBe(0);
    await expect.poll(status(page), POLL).toBe('status: succeeded');
    expect(await progress()).toBe('3 members: 3 done · 0 running · 0 failed');
    expect(await row(page, 'slow').innerText()).toContain('completed');
  });

  it('a group is edited (members, ranks, policy, notes) and deleted after a confirmation, as SQLite and groups.list see it', async () => {
    const page = await open(['echo', 'tasks', 'broken@2']);
    const editor = page.getByTestId('group-editor');
    await editor.locator('summary').click();
    const members = () => withDb((d) => d.prepare(`SELECT agent_alias, rank FROM group_members WHERE group_name = 'crew' ORDER BY rank`).all());
    const said = text(editor.getByTestId('group-editor-status'));

    await editor.getByRole('button', { name: 'Remove broken from crew' }).click();
    await expect.poll(said, POLL).toBe('Done: removed broken.');
    expect(members()).toEqual([
      { agent_alias: 'echo', rank: 0 },
      { agent_alias: 'tasks', rank: 1 },
    ]);
    await editor.locator('select[name=add-member]').selectOption('broken');
    await editor.locator('input[name=add-member-rank]').fill('5');
    await editor.getByRole('button', { name: 'Add member' }).click();
    await expect.poll(said, POLL).toBe('Done: added broken.');
    await editor.getByRole('spinbutton', { name: 'Rank of echo' }).fill('7');
    await editor.getByRole('button', { name: 'Set rank of echo to 7' }).click();
    await expect.poll(said, POLL).toBe('Done: moved echo to rank 7.');
    expect(members()).toEqual([
      { agent_alias: 'tasks', rank: 1 },
      { agent_alias: 'broken', rank: 5 },
      { agent_alias: 'echo', rank: 7 },
    ]);
    // The roster above follows.
    const roster = page.getByTestId('group-members').getByTestId('group-member');
    await expect
      .poll(() => roster.allInnerTexts(), POLL)
      .toEqual([expect.stringMatching(/^1\s+tasks/), expect.stringMatching(/^5\s+broken/), expect.stringMatching(/^7\s+echo/)]);

    await editor.locator('select[name=routing-policy]').selectOption('round-robin');
    await editor.locator('input[name=group-notes]').fill('night shift');
    await editor.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(said, POLL).toBe('Done: saved the settings.');
    expect(withDb((d) => d.prepare(`SELECT routing_policy, notes FROM "groups" WHERE group_name = 'crew'`).get())).toEqual({
      routing_policy: 'round-robin',
      notes: 'night shift',
    });
    const listed = await gui!.registry.invoke('groups.list', {});
    expect(listed).toMatchObject({ ok: true, data: { groups: [{ group_name: 'crew', members: 3, routing_policy: 'round-robin', notes: 'night shift' }] } });

    // Delete asks first; Cancel keeps the group.
    await editor.getByRole('button', { name: 'Delete group' }).click();
    await editor.getByRole('button', { name: 'Cancel' }).click();
    expect(withDb((d) => d.prepare(`SELECT count(*) AS n FROM "groups"`).get())).toEqual({ n: 1 });
    await editor.getByRole('button', { name: 'Delete group' }).click();
    await editor.getByRole('button', { name: 'Confirm delete' }).click();
    await expect.poll(text(page.getByTestId('group-deleted')), POLL).toBe('Deleted group crew; its agents stay registered.');
    await expect.poll(text(page.getByTestId('empty')), POLL).toContain('No groups yet');
    expect(
      withDb((d) =>
        d
          .prepare(`SELECT (SELECT count(*) FROM "groups") AS groups, (SELECT count(*) FROM group_members) AS members, (SELECT count(*) FROM agents) AS agents`)
          .get(),
      ),
    ).toEqual({ groups: 0, members: 0, agents: 3 });
    expect(await gui!.registry.invoke('groups.list', {})).toEqual({ ok: true, data: { groups: [] } });
    expect(payloads('missive.group.updated')).toEqual([{ group: 'crew', routing_policy: 'round-robin', notes_changed: true }]);
    expect(payloads('missive.group.deleted')).toEqual([{ group: 'crew' }]);
  });

  it('`missive group set` changes the policy and notes through the same service, and refuses an empty change', async () => {
    box = sandbox();
    await register(box, { echo: fleet.agents.echo! });
    expect((await box.run(['group', 'create', 'solo', '--member', 'echo'])).code).toBe(0);
    const set = await box.run(['group', 'set', 'solo', '--routing-policy', 'capability-match', '--notes', 'on call', '--json']);
    expect(set.code).toBe(0);
    expect(set.json().data).toMatchObject({ group_name: 'solo', routing_policy: 'capability-match', routing_policy_source: 'group', notes: 'on call' });
    expect((await box.run(['group', 'set', 'solo', '--notes', '', '--json'])).json().data).toMatchObject({ routing_policy: 'capability-match', notes: null });
    const nothing = await box.run(['group', 'set', 'solo']);
    expect(nothing.code).toBe(64);
    expect(nothing.stderr).toContain('nothing to change in group "solo"');
    expect(nothing.stderr).toContain('Pass --routing-policy and/or --notes.');
    const bad = await box.run(['group', 'set', 'solo', '--routing-policy', 'random']);
    expect(bad.code).toBe(64);
    expect(readDb(box, (d) => d.prepare(`SELECT routing_policy, notes FROM "groups"`).get())).toEqual({ routing_policy: 'capability-match', notes: null });
  });
});
