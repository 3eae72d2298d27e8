/**
 * Followed state (issue 35), in Chromium through the web console against real SDK agents: a `working` task in Compose
 * turns `completed` without a reload (SubscribeToTask); a task waiting for input shows the agent's question in the
 * Tasks detail, and the reply there continues the same task until it completes; a final task offers neither Wait nor
 * Cancel; following that fails (the agent stopped) says "last known" and why. One GUI for the file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { CHROMIUM, POLL, startGui, text, type Gui } from '../support/gui.js';
import { startConversationPeer, type ConversationPeer } from '../support/conversation-peer.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let talk: ConversationPeer;
let box: Sandbox;
let gui: Gui;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM}`).toBe(true);
  fleet = await startAgents({
    // Streams: followed by SubscribeToTask.
    worker: { behaviour: 'slow', streaming: true },
    // No streaming: followed by GetTask with backoff.
    poller: { behaviour: 'slow', streaming: false },
  });
  talk = await startConversationPeer();
  box = sandbox();
  await register(box, { worker: fleet.agents.worker!, poller: fleet.agents.poller!, talk });
  gui = await startGui(box, { viewport: { width: 1280, height: 800 } });
});
afterAll(async () => {
  await gui?.close();
  box?.dispose();
  await talk?.close();
  await fleet?.close();
});

const tasksOf = (agent: string) =>
  readDb(box, (d) => d.prepare(`SELECT task_id, state, context_id FROM tasks WHERE agent_alias = ? ORDER BY updated_at`).all(agent)) as Array<{
    task_id: string;
    state: string;
    context_id: string | null;
  }>;

async function openTask(taskId: string) {
  const { page } = gui;
  await page.getByTestId('nav-tasks').click();
  const row = page.locator('.task-row', { hasText: taskId });
  await expect.poll(() => row.count(), POLL).toBe(1);
  await row.getByRole('button', { name: `Open task ${taskId}` }).click();
  const detail = page.getByTestId('task-detail');
  await expect.poll(text(detail.locator('h3')), POLL).toBe(taskId);
  return detail;
}

/** axe's source, evaluated in the page as a11y.test.ts does (the CSP stays on). */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe's critical and serious violations inside the task detail, in both themes. */
async function blockingViolations(): Promise<string[]> {
  const { page } = gui;
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  const found: string[] = [];
  for (const theme of ['dark', 'light']) {
    await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
    const violations = await page.evaluate(async () => {
      const axe = (
        window as unknown as {
          axe: { run(d: Element, o: object): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> };
        }
      ).axe;
      const { violations } = await axe.run(document.querySelector('[data-testid=task-detail]')!, { resultTypes: ['violations'] });
      return violations
        .filter((v) => v.impact === 'critical' || v.impact === 'serious')
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    });
    found.push(...violations.map((v) => `${theme}: ${v}`));
  }
  return found;
}

describe('followed state', () => {
  it('a working task in Compose turns completed without a reload', async () => {
    const { page } = gui;
    await page.getByTestId('nav-compose').click();
    const compose = page.getByTestId('view-compose');
    await compose.locator('select[name=agent]').selectOption('worker');
    await compose.locator('select[name=mode]').selectOption('send');
    await compose.locator('details.more-options summary').click();
    await compose.locator('input[name=return-immediately]').check();
    await compose.locator('textarea[name=text]').fill('take 3s');
    await compose.getByTestId('send').click();
    const head = compose.getByTestId('send-result').locator('.answer-head');
    // The call answered at once with the working task ...
    await expect.poll(text(head), POLL).toContain('working');
    // ... which is followed until the agent finishes it: no reload, no click.
    await expect.poll(text(head), POLL).toContain('completed');
    expect(await text(compose.getByTestId('answer'))()).toContain('done: take 3s');
    const [task] = tasksOf('worker');
    expect(task!.state).toBe('completed');
    expect(await compose.getByTestId('followed-task').getAttribute('data-task-id')).toBe(task!.task_id);
    // A final task offers neither Wait nor Cancel.
    expect(await compose.getByRole('button', { name: /^(Wait|Cancel)( for)? task/ }).count()).toBe(0);
  });

  it('an input_required task answered from the Tasks detail continues the same task, which then offers no Wait or Cancel', async () => {
    const sent = (await box.run(['send', 'talk', 'ask', '--json'])).json().data;
    const taskId: string = sent.task.task_id;
    expect(sent.task.state).toBe('input_required');
    const detail = await openTask(taskId);
    // The agent's question, and a reply box.
    await expect.poll(text(detail.getByTestId('followed-question')), POLL).toContain('What name should I use?');
    expect(await blockingViolations()).toEqual([]);
    await detail.locator('textarea[name=task-reply]').fill('Ada');
    await detail.getByRole('button', { name: 'Send reply' }).click();
    await expect.poll(text(detail.getByTestId('followed-state')), POLL).toBe('completed');
    expect(await text(detail)()).not.toContain('What name should I use?');
    // The same task, in the same context: the reply went in it, and it ended completed.
    const tasks = tasksOf('talk');
    expect(tasks).toEqual([{ task_id: taskId, state: 'completed', context_id: sent.task.context_id }]);
    const reply = readDb(box, (d) =>
      d.prepare(`SELECT task_id, context_id FROM messages WHERE direction = 'request' AND json_extract(content_json, '$.parts[0].text') = 'Ada'`).get(),
    );
    expect(reply).toEqual({ task_id: taskId, context_id: sent.task.context_id });
    // Final: neither Wait nor Cancel, here or on its row.
    expect(await detail.getByRole('button', { name: `Wait for task ${taskId}` }).count()).toBe(0);
    expect(await detail.getByRole('button', { name: `Cancel task ${taskId}` }).count()).toBe(0);
    expect(await detail.getByRole('button', { name: /^(Wait|Cancel)$/ }).count()).toBe(0);
  });

  it('a final task offers neither Wait nor Cancel', async () => {
    const taskId: string = (await box.run(['send', 'talk', 'data', '--json'])).json().data.task.task_id;
    const detail = await openTask(taskId);
    await expect.poll(text(detail.getByTestId('task-detail-state')), POLL).toContain('completed');
    expect(await detail.getByRole('button', { name: /^(Wait|Cancel)\b/ }).count()).toBe(0);
    expect(await detail.getByRole('button', { name: /^Refresh/ }).count()).toBe(1);
  });

  it('History’s detail and the Contexts thread follow a task that is not final until it is', async () => {
    const start = async (text: string) => (await box.run(['send', 'poller', text, '--return-immediately', '--json'])).json().data.task;
    const inContext = await start('take 3s, then tell Contexts');
    const inHistory = await start('take 8s, then tell History');
    const { page } = gui;
    await page.getByTestId('nav-contexts').click();
    const row = page.locator('.task-row', { hasText: inContext.context_id.slice(0, 8) });
    await expect.poll(() => row.count(), POLL).toBe(1);
    await row.click();
    const inThread = page.getByTestId('context-thread').locator(`[data-testid=followed-task][data-task-id="${inContext.task_id}"]`);
    await expect.poll(text(inThread.getByTestId('followed-state')), POLL).toBe('completed');

    await page.getByTestId('nav-history').click();
    await page.getByTestId('history-row').filter({ hasText: 'then tell History' }).locator('.history-open').click();
    const followed = page.getByTestId('history-detail').getByTestId('followed-task');
    await expect.poll(() => followed.getAttribute('data-task-id', { timeout: 250 }).catch(() => null), POLL).toBe(inHistory.task_id);
    await expect.poll(text(followed.getByTestId('followed-state')), POLL).toBe('completed');
  });

  it('following that fails (the agent stopped) shows "last known" and why; Cancel then ends it, and the cancelled task offers no Cancel', async () => {
    const sent = (await box.run(['send', 'poller', 'take 5m', '--return-immediately', '--json'])).json().data;
    const taskId: string = sent.task.task_id;
    const poller = fleet.agents.poller!;
    await poller.pause();
    try {
      const detail = await openTask(taskId);
      const lastKnown = detail.getByTestId('followed-last-known');
      await expect.poll(text(lastKnown), POLL).toContain('last known working');
      expect(await text(lastKnown)()).toMatch(/ago|just now/);
      expect(await text(lastKnown)()).toContain('missive::transport::');
      expect(await blockingViolations()).toEqual([]);
    } finally {
      await poller.resume();
    }
    const detail = gui.page.getByTestId('task-detail');
    // The agent is back: Refresh follows again, then Cancel ends the task.
    await detail.getByRole('button', { name: `Refresh task ${taskId}` }).click();
    await expect.poll(() => detail.getByTestId('followed-last-known').count(), POLL).toBe(0);
    await detail.getByRole('button', { name: `Cancel task ${taskId}` }).click();
    await expect.poll(text(detail.getByTestId('followed-state')), POLL).toBe('cancelled');
    expect(await detail.getByRole('button', { name: `Cancel task ${taskId}` }).count()).toBe(0);
    expect(await detail.getByRole('button', { name: `Wait for task ${taskId}` }).count()).toBe(0);
    expect(tasksOf('poller').find((t) => t.task_id === taskId)).toEqual({ task_id: taskId, state: 'cancelled', context_id: sent.task.context_id });
  });
});
