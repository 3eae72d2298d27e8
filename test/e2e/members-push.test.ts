/**
 * Answers where they arrived, and the push loop, in Chromium through the web console against real SDK agents and the
 * real SQLite file: a bcast's (and then a barrier's) member rows show each member's answer without a gather; the
 * webhook panel in Settings lists the callbacks the journal holds (time, task as a link, state, the body on request);
 * Compose's push URL takes the running receiver's URL in one click, and a send with it gets its callbacks listed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { CHROMIUM, POLL, startGui, readText, text, type Gui } from '../support/gui.js';
import { startConversationPeer, type ConversationPeer } from '../support/conversation-peer.js';

let box: Sandbox;
let gui: Gui | undefined;
const SECRET = 'sk-live-0123456789abcdef';
const TOKEN = 'cb-token-9876543210';

const withDb = <T>(fn: (d: Database.Database) => T): T => readDb(box, fn);
const count = (sql: string, ...params: unknown[]) => withDb((d) => (d.prepare(sql).get(...params) as { n: number }).n);

/** axe-core's critical and serious violations on the page as it is (its source evaluated as a11y.test.ts does). */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
async function blockingViolations(page: Page): Promise<string[]> {
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

afterEach(async () => {
  await gui?.close();
  gui = undefined;
  box?.dispose();
});

describe("members' answers where they arrived", () => {
  let fleet: Awaited<ReturnType<typeof startAgents>>;
  beforeAll(async () => {
    expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM}`).toBe(true);
    fleet = await startAgents({ echo: { behaviour: 'echo' }, tasks: { behaviour: 'task' }, broken: { behaviour: 'fail' } });
  });
  afterAll(() => fleet.close());

  it("a bcast to 3 agents shows each member's answer in its row, without a gather; a barrier after it too", async () => {
    box = sandbox();
    await register(box, fleet.agents);
    expect((await box.run(['group', 'create', 'crew', '--member', 'echo', '--member', 'tasks', '--member', 'broken'])).code).toBe(0);
    gui = await startGui(box, { viewport: { width: 1280, height: 800 } });
    const page = gui.page;
    await page.getByTestId('nav-collectives').click();
    await expect.poll(() => page.getByTestId('group-members').getByTestId('group-member').count(), POLL).toBe(3);
    await page
      .getByTestId('operation-picker')
      .getByLabel(/^bcast/)
      .check();
    await page.fill('input[name=collective-text]', 'review the plan');
    await page.getByTestId('run-collective').click();
    await expect.poll(text(page.getByTestId('collective-status')), POLL).toBe('status: partial_failure');

    const row = (alias: string) => page.locator(`[data-testid=member-row][data-member=${alias}]`);
    const preview = (alias: string) => text(row(alias).getByTestId('member-preview'));
    // Each member's reply (a message) or task answer is in its row, with no click and no gather.
    await expect.poll(preview('echo'), POLL).toBe('echo: review the plan');
    await expect.poll(preview('tasks'), POLL).toBe('done: review the plan');
    await expect.poll(preview('broken'), POLL).toBe('cannot do: review the plan');
    // "Show answer" has the whole answer (and the task's artifact), not a pointer to gather.
    await row('tasks').getByRole('button', { name: 'Show answer of tasks' }).click();
    const answer = page.locator('[data-testid=member-answer][data-member=tasks]');
    await expect.poll(text(answer.getByTestId('member-text')), POLL).toBe('done: review the plan');
    await expect.poll(text(answer.getByTestId('member-artifact')), POLL).toContain('result for: review the plan');
    expect(await readText(answer)).not.toContain('gathered by a round or a gather');
    expect(count(`SELECT count(*) AS n FROM events WHERE event_type LIKE 'missive.gather.%'`)).toBe(0);
    expect(await blockingViolations(page)).toEqual([]);

    // A barrier on the same context: its rows show the answers too.
    await page
      .getByTestId('operation-picker')
      .getByLabel(/^barrier/)
      .check();
    await page.getByTestId('run-collective').click();
    await expect.poll(() => page.getByTestId('collective-quorum').count(), POLL).toBe(1);
    await expect.poll(preview('tasks'), POLL).toBe('done: review the plan');
    await expect.poll(preview('echo'), POLL).toBe('echo: review the plan');
    expect(count(`SELECT count(*) AS n FROM events WHERE event_type LIKE 'missive.gather.%'`)).toBe(0);
  });
});

describe('the push loop', () => {
  let peer: ConversationPeer;
  beforeAll(async () => {
    expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM}`).toBe(true);
    peer = await startConversationPeer();
  });
  afterAll(() => peer.close());

  /** Settings' receiver started from its own button; its URL as the status line shows it. */
  async function startReceiver(page: Page): Promise<string> {
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('webhook-start').click();
    await expect.poll(text(page.getByTestId('webhook-status')), POLL).toContain('listening on');
    return /listening on (\S+)/.exec(await readText(page.getByTestId('webhook-status')))![1]!;
  }

  it("Compose's \u201cuse the running receiver\u201d fills the push URL; the send's callbacks are listed in the webhook panel, body on request", async () => {
    box = sandbox();
    await register(box, { talk: peer });
    gui = await startGui(box, { viewport: { width: 1280, height: 800 } });
    const page = gui.page;
    const url = await startReceiver(page);

    await page.getByTestId('nav-compose').click();
    const compose = page.getByTestId('view-compose');
    await compose.locator('.more-options summary').click();
    await compose.getByRole('button', { name: 'Use the running receiver' }).click();
    expect(await compose.locator('input[name=push-url]').inputValue()).toBe(url);
    await compose.locator('textarea[name=text]').fill('push it');
    await compose.getByTestId('send').click();
    await expect.poll(text(compose.getByTestId('answer')), POLL).toBe('pushed and done');
    const taskId = withDb((d) => (d.prepare(`SELECT task_id FROM tasks`).get() as { task_id: string }).task_id);
    await expect.poll(() => count(`SELECT count(*) AS n FROM events WHERE event_type LIKE 'a2a.push.%' AND task_id = ?`, taskId), POLL).toBeGreaterThan(0);

    await page.getByTestId('nav-settings').click();
    const panel = page.getByTestId('webhook-callbacks');
    const completed = panel.locator('[data-testid=webhook-callback][data-state=completed]').first();
    await expect.poll(() => completed.count(), POLL).toBe(1);
    // Its task is a link (to Tasks), its state is shown, its body is folded until asked for.
    expect(await completed.getByTestId('idlink-task').getAttribute('data-id')).toBe(taskId);
    expect(await readText(completed)).toContain('completed');
    expect(await completed.getByTestId('webhook-callback-body').count()).toBe(0);
    await completed.getByRole('button', { name: /^Show body/ }).click();
    const body = completed.getByTestId('webhook-callback-body');
    await expect.poll(text(body), POLL).toContain('pushed and done');
    expect(await readText(body)).toContain(taskId);
    expect(await blockingViolations(page)).toEqual([]);
    // The link opens the task in Tasks.
    await completed.getByTestId('idlink-task').click();
    await expect.poll(() => page.getByTestId('view-tasks').isVisible(), POLL).toBe(true);
  });

  it('without a running receiver Compose offers none; a refused callback shows its reason; a secret in a body is redacted and no token is shown', async () => {
    box = sandbox();
    await register(box, { talk: peer });
    gui = await startGui(box, { viewport: { width: 1280, height: 800 } });
    const page = gui.page;
    await page.getByTestId('nav-compose').click();
    const compose = page.getByTestId('view-compose');
    await compose.locator('.more-options summary').click();
    await expect.poll(text(compose.getByTestId('push-receiver')), POLL).toContain('No receiver is running');
    expect(await compose.getByRole('button', { name: 'Use the running receiver' }).count()).toBe(0);

    const url = await startReceiver(page);
    const refused = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"not":"a2a"}' });
    expect(refused.status).toBe(400);
    const row = page.getByTestId('webhook-callbacks').locator('[data-testid=webhook-callback][data-outcome=rejected]');
    await expect.poll(() => row.count(), POLL).toBe(1);
    expect(await readText(row)).toContain('refused (HTTP 400)');
    await row.getByRole('button', { name: /^Show body/ }).click();
    await expect.poll(text(row.getByTestId('webhook-callback-body')), POLL).toContain('not an A2A StreamResponse');

    // A callback's token (a header) is never stored, and a secret in its body is shown redacted, as everywhere else.
    const update = { taskId: 'task-from-elsewhere', contextId: 'ctx-elsewhere', status: { state: 'TASK_STATE_WORKING' }, metadata: { api_key: SECRET } };
    const accepted = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-a2a-notification-token': TOKEN },
      body: JSON.stringify({ statusUpdate: update }),
    });
    expect(accepted.status).toBe(202);
    const working = page.getByTestId('webhook-callbacks').locator('[data-testid=webhook-callback][data-state=working]');
    await expect.poll(() => working.count(), POLL).toBe(1);
    expect(await working.getByTestId('idlink-task').getAttribute('data-id')).toBe('task-from-elsewhere');
    await working.getByRole('button', { name: /^Show body/ }).click();
    await expect.poll(text(working.getByTestId('webhook-callback-body')), POLL).toContain('[REDACTED]');
    const shown = await page.content();
    expect(shown).not.toContain(SECRET);
    expect(shown).not.toContain(TOKEN);
  });
});
