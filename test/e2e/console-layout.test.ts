/**
 * Where results land, in Chromium through the web console at 1280×800 and 900×600 with 200 agents registered (seeded
 * straight into the store; real SDK agents only for the two that are sent to or registered): Inspect, Register's
 * automatic inspect, a selected row and every palette "open" put the item's heading inside the viewport with the focus
 * on it; the sidebar stays put; filters narrow the lists; the palette finds a task, a context and a message by a
 * prefix of its id; ids in Events rows are links; Ctrl+N lands in Compose's message box; a collective's context is
 * named as one.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { sandbox, type Sandbox } from '../support/cli.js';
import { closedPortUrl, register, startAgents } from '../support/agents.js';
import { CHROMIUM, POLL, startGui, text, type Gui } from '../support/gui.js';
import { tamperStore } from '../support/store-writes.js';

const SEEDED = 200;
let fleet: Awaited<ReturnType<typeof startAgents>>;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM} (apt-get install chromium)`).toBe(true);
  fleet = await startAgents({ zeta: { behaviour: 'task' }, newcomer: { behaviour: 'task' } });
});
afterAll(() => fleet?.close());

/** Where an element is: inside the viewport or not, and whether it holds the focus. */
async function placement(page: Page, locator: Locator): Promise<{ inViewport: boolean; focused: boolean }> {
  const box = await locator.boundingBox({ timeout: 250 }).catch(() => null);
  const size = page.viewportSize()!;
  const inViewport = !!box && box.x >= 0 && box.y >= 0 && box.x + box.width <= size.width && box.y + box.height <= size.height;
  const focused = await locator.evaluate((el) => el === document.activeElement, undefined, { timeout: 250 }).catch(() => false);
  return { inViewport, focused };
}
const REVEALED = { inViewport: true, focused: true };

async function palette(page: Page, query: string): Promise<void> {
  await page.keyboard.press('Control+k');
  await expect.poll(() => page.getByTestId('palette').isVisible(), POLL).toBe(true);
  await page.getByTestId('palette-input').fill(query);
}

describe.each([
  [1280, 800],
  [900, 600],
])('at %i×%i with 200 agents', (width, height) => {
  let box: Sandbox;
  let gui: Gui;
  let page: Page;
  const sent: Array<{ taskId: string; contextId: string; messageId: string }> = [];

  beforeAll(async () => {
    box = sandbox();
    await register(box, { zeta: fleet.agents.zeta! });
    for (const words of ['plan the comet probe', 'list the asteroid moons']) {
      const data = (await box.run(['send', 'zeta', words, '--json'])).json().data;
      sent.push({ taskId: data.response.task.id, contextId: data.response.task.contextId, messageId: data.request.message_id });
    }
    const nowhere = await closedPortUrl();
    const rows: Array<[string, unknown[]]> = Array.from({ length: SEEDED }, (_, i) => [
      'INSERT INTO agents (alias, source, base_url, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
      [`agent-${String(i).padStart(3, '0')}`, 'local', `${nowhere}/fleet/${i}`, new Date().toISOString(), new Date().toISOString()],
    ]);
    await tamperStore(box, rows);
    gui = await startGui(box, { viewport: { width, height } });
    page = gui.page;
  });
  afterAll(async () => {
    await gui?.close();
    box?.dispose();
  });

  const agentHeading = () => page.locator('[data-view=agents] [data-testid=agent-card] h3');
  /** On a narrow window the detail is a drawer over the list: closed (its Close button) before using the list. */
  const closeDrawer = async (view: string) => {
    const close = page.locator(`[data-view=${view}] [data-testid=detail-pane] .detail-pane-tools button`);
    if (width < 1100 && (await close.count())) await close.click();
  };

  it('Inspect on the last of 201 rows shows the card in view, its heading focused; the sidebar stays put', async () => {
    await expect.poll(() => page.getByTestId('agent-row').count(), POLL).toBe(SEEDED + 1);
    await page.getByRole('button', { name: 'Inspect zeta', exact: true }).click();
    await expect.poll(text(agentHeading()), POLL).toContain('zeta');
    await expect.poll(() => placement(page, agentHeading()), POLL).toEqual(REVEALED);
    // The list scrolled to its last row; the page did not: the sidebar is where it was.
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    expect(await placement(page, page.getByTestId('nav-agents')).then((p) => p.inViewport)).toBe(true);
    // The picked row is still in view beside its card (on a narrow window, beside the drawer).
    const zetaRow = page.locator('[data-testid=agent-row][data-alias=zeta]');
    await expect.poll(() => placement(page, zetaRow).then((p) => p.inViewport), POLL).toBe(true);
    await gui.shot(`layout-agents-${width}x${height}`, { window: true });
  });

  it("Register's automatic inspect shows the new agent's card in view, its heading focused", async () => {
    await closeDrawer('agents');
    const form = page.getByTestId('agent-add-form');
    await form.locator('input[name=alias]').fill('newcomer');
    await form.locator('input[name=baseUrl]').fill(fleet.agents.newcomer!.baseUrl);
    await form.getByTestId('agent-register').click();
    await expect.poll(text(agentHeading()), POLL).toContain('newcomer');
    await expect.poll(() => placement(page, agentHeading()), POLL).toEqual(REVEALED);
  });

  it('the agents filter narrows the list by alias and by URL', async () => {
    await closeDrawer('agents');
    const filter = page.locator('[data-view=agents] input[name=agent-filter]');
    await filter.fill('agent-01');
    await expect.poll(() => page.getByTestId('agent-row').count(), POLL).toBe(10);
    await filter.fill(new URL(fleet.agents.zeta!.baseUrl).host);
    await expect.poll(() => page.getByTestId('agent-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-alias'))), POLL).toEqual(['zeta']);
    await filter.fill('');
    await expect.poll(() => page.getByTestId('agent-row').count(), POLL).toBe(SEEDED + 2);
  });

  it('palette "<alias>: open in Agents" selects the agent and shows its card, heading focused', async () => {
    await page.getByTestId('nav-tasks').click();
    await palette(page, 'zeta: open');
    await expect.poll(() => page.getByTestId('palette-option').allInnerTexts(), POLL).toEqual(['Agent zeta: open in Agents']);
    await page.keyboard.press('Enter');
    await expect.poll(text(agentHeading()), POLL).toContain('zeta');
    await expect.poll(() => placement(page, agentHeading()), POLL).toEqual(REVEALED);
  });

  it('palette finds a task, a context and a message by id prefix and opens each in view, heading focused', async () => {
    const [first] = sent;
    const cases = [
      { kind: 'Task', id: first!.taskId, heading: '[data-view=tasks] [data-testid=task-detail] h3' },
      { kind: 'Context', id: first!.contextId, heading: '[data-view=contexts] [data-testid=context-thread] h3' },
      { kind: 'Message', id: first!.messageId, heading: '[data-view=history] [data-testid=history-detail] h3' },
    ];
    for (const { kind, id, heading } of cases) {
      await page.getByTestId('nav-agents').click();
      await palette(page, id.slice(0, 8));
      const options = page.getByTestId('palette-option').filter({ hasText: kind });
      await expect.poll(() => options.count(), POLL).toBeGreaterThan(0);
      await options.first().click();
      const target = page.locator(heading);
      await expect.poll(() => placement(page, target), POLL).toEqual(REVEALED);
      if (kind !== 'Message') await expect.poll(text(target), POLL).toContain(id);
      else await expect.poll(text(page.locator('[data-view=history] [data-testid=history-detail]')), POLL).toContain('plan the comet probe');
    }
  });

  it('filters narrow Tasks, Contexts and History; a selected row shows its detail in view, heading focused', async () => {
    const [first, second] = sent;
    await page.getByTestId('nav-tasks').click();
    const taskRows = page.locator('[data-view=tasks] [data-testid=tasks-table] tbody tr');
    await expect.poll(() => taskRows.count(), POLL).toBe(2);
    await closeDrawer('tasks');
    await page.locator('[data-view=tasks] input[name=task-filter]').fill(second!.taskId.slice(0, 8));
    await expect.poll(() => taskRows.count(), POLL).toBe(1);
    await taskRows.first().locator('button.row-link').click();
    const taskHeading = page.locator('[data-view=tasks] [data-testid=task-detail] h3');
    await expect.poll(text(taskHeading), POLL).toBe(second!.taskId);
    await expect.poll(() => placement(page, taskHeading), POLL).toEqual(REVEALED);

    await page.getByTestId('nav-contexts').click();
    const contextRows = page.locator('[data-view=contexts] [data-testid=contexts-table] tbody tr');
    await expect.poll(() => contextRows.count(), POLL).toBe(2);
    await closeDrawer('contexts');
    await page.locator('[data-view=contexts] input[name=context-filter]').fill('asteroid');
    await expect.poll(() => contextRows.count(), POLL).toBe(1);
    await contextRows.first().getByTestId('context-title').click();
    const contextHeading = page.locator('[data-view=contexts] [data-testid=context-thread] h3');
    await expect.poll(text(contextHeading), POLL).toContain(second!.contextId);
    await expect.poll(() => placement(page, contextHeading), POLL).toEqual(REVEALED);

    await page.getByTestId('nav-history').click();
    const historyRows = page.locator('[data-view=history] [data-testid=history-row]');
    await expect.poll(() => historyRows.count(), POLL).toBe(2);
    await closeDrawer('history');
    await page.locator('[data-view=history] input[name=history-filter]').fill('comet');
    await expect.poll(() => historyRows.count(), POLL).toBe(1);
    await historyRows.first().locator('.history-open').click();
    const historyHeading = page.locator('[data-view=history] [data-testid=history-detail] h3');
    await expect.poll(text(historyHeading), POLL).toContain('zeta');
    await expect.poll(() => placement(page, historyHeading), POLL).toEqual(REVEALED);
    expect(first!.messageId).not.toBe(second!.messageId);
  });

  it('task ids in Events rows are links to the task', async () => {
    await page.getByTestId('nav-events').click();
    const link = page.locator(`[data-view=events] [data-testid=event-list] [data-testid=idlink-task][data-id="${sent[0]!.taskId}"]`).first();
    await expect.poll(() => link.count(), POLL).toBeGreaterThan(0);
    await link.click();
    const taskHeading = page.locator('[data-view=tasks] [data-testid=task-detail] h3');
    await expect.poll(text(taskHeading), POLL).toBe(sent[0]!.taskId);
    await expect.poll(() => placement(page, taskHeading), POLL).toEqual(REVEALED);
  });

  it('Ctrl+N opens Compose with the focus in the message box', async () => {
    await page.getByTestId('nav-agents').click();
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Control+n');
    await expect.poll(() => page.locator('[data-view=compose]').isVisible(), POLL).toBe(true);
    await expect.poll(() => placement(page, page.locator('[data-view=compose] textarea[name=text]')), POLL).toEqual(REVEALED);
  });

  it("a collective's context is named as the collective over its group, not after its first member", async () => {
    expect((await box.run(['group', 'create', 'crew', '--member', 'zeta'])).code).toBe(0);
    expect((await box.run(['bcast', 'crew', 'survey the rings', '--json'])).code).toBe(0);
    await page.getByTestId('nav-contexts').click();
    await closeDrawer('contexts');
    await page.locator('[data-view=contexts] input[name=context-filter]').fill('');
    const row = page.locator('[data-view=contexts] [data-testid=contexts-table] tbody tr', { hasText: 'survey the rings' });
    await expect.poll(text(row.getByTestId('context-agent')), POLL).toBe('bcast over group crew');
    // A round's context is the round's, though its bcast opened it.
    expect((await box.run(['round', 'crew', 'count the moons', '--json'])).code).toBe(0);
    await page.getByTestId('nav-agents').click();
    await page.getByTestId('nav-contexts').click();
    const roundRow = page.locator('[data-view=contexts] [data-testid=contexts-table] tbody tr', { hasText: 'count the moons' });
    await expect.poll(text(roundRow.getByTestId('context-agent')), POLL).toBe('round over group crew');
  });
});
