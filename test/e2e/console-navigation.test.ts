/**
 * Navigation in the web console, in Chromium against real SDK agents through the real handler registry and SQLite
 * file: task, context and message ids are links that land on their item (Tasks with the task open, Contexts with the
 * thread open, History with the entry open); contexts read as their agent and first message, not "unnamed" + UUID;
 * the command palette opens with Ctrl+K and runs what is picked; `?` lists the shortcuts.
 */
import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { CHROMIUM, POLL, startGui, text, type Gui } from '../support/gui.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
let gui: Gui | undefined;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM} (apt-get install chromium)`).toBe(true);
  fleet = await startAgents({ planner: { behaviour: 'task' } });
});
afterAll(() => fleet.close());
afterEach(async () => {
  await gui?.close();
  gui = undefined;
  box.dispose();
});

/** A sandbox with the planner registered and one task it finished, sent from the CLI; the GUI on it. */
async function openWithTask(): Promise<{ gui: Gui; taskId: string; contextId: string; messageId: string }> {
  box = sandbox();
  await register(box, { planner: fleet.agents.planner! });
  const sent = (await box.run(['send', 'planner', 'plan the launch of the comet probe', '--json'])).json().data;
  gui = await startGui(box, { viewport: { width: 1280, height: 800 } });
  const task = sent.response.task;
  return { gui, taskId: task.id, contextId: task.contextId, messageId: sent.request.message_id };
}

const shown = (g: Gui, view: string) => g.page.locator(`[data-view=${view}]`).isVisible();

describe('ids are links to their views', () => {
  it('a task id, a context id and a message id each land on their item', async () => {
    const { gui: g, taskId, contextId, messageId } = await openWithTask();
    const { page } = g;

    // History: the entry's detail names its task and context as links.
    await page.getByTestId('nav-history').click();
    await page.getByTestId('history-row').first().locator('.history-open').click();
    const detail = page.getByTestId('history-detail');
    await expect.poll(text(detail), POLL).toContain('plan the launch of the comet probe');

    // The task id → Tasks, that task's detail open.
    await detail.locator(`[data-testid=idlink-task][data-id="${taskId}"]`).click();
    await expect.poll(() => shown(g, 'tasks'), POLL).toBe(true);
    await expect.poll(text(page.getByTestId('task-detail').locator('h3')), POLL).toBe(taskId);
    await expect.poll(text(page.getByTestId('task-detail-state')), POLL).toContain('completed');

    // The task's context id → Contexts, that context's thread open.
    await page.getByTestId('task-detail').locator(`[data-testid=idlink-context][data-id="${contextId}"]`).click();
    await expect.poll(() => shown(g, 'contexts'), POLL).toBe(true);
    const thread = page.getByTestId('context-thread');
    await expect.poll(text(thread), POLL).toContain(contextId);
    await expect.poll(text(thread), POLL).toContain('result for: plan the launch of the comet probe');

    // The context's first message → History, that entry open (closed first, so the link is what opens it).
    await page.getByTestId('nav-history').click();
    await page.getByRole('button', { name: 'Close the history entry' }).click();
    await expect.poll(() => page.getByTestId('history-detail').count(), POLL).toBe(0);
    await page.getByTestId('nav-contexts').click();
    await thread.locator(`[data-testid=idlink-message][data-id="${messageId}"]`).click();
    await expect.poll(() => shown(g, 'history'), POLL).toBe(true);
    await expect.poll(text(page.getByTestId('history-detail')), POLL).toContain('plan the launch of the comet probe');
    expect(await page.locator('.history-row.open').count()).toBe(1);
  });

  it('an event row links its task and its message', async () => {
    const { gui: g, taskId, messageId } = await openWithTask();
    const { page } = g;
    await page.getByTestId('nav-events').click();
    await page.locator('.event-row', { hasText: 'a2a.send.completed' }).click();
    const detail = page.getByTestId('event-detail');
    await detail.locator(`[data-testid=idlink-message][data-id="${messageId}"]`).click();
    await expect.poll(() => shown(g, 'history'), POLL).toBe(true);
    await expect.poll(text(page.getByTestId('history-detail')), POLL).toContain('plan the launch of the comet probe');

    await page.getByTestId('nav-events').click();
    await detail.locator(`[data-testid=idlink-task][data-id="${taskId}"]`).click();
    await expect.poll(() => shown(g, 'tasks'), POLL).toBe(true);
    await expect.poll(text(page.getByTestId('task-detail').locator('h3')), POLL).toBe(taskId);
  });

  it('contexts read as their agent and first message, not "unnamed" and a UUID', async () => {
    const { gui: g, contextId } = await openWithTask();
    const { page } = g;
    await page.getByTestId('nav-contexts').click();
    const row = page.locator('[data-testid=contexts-table] tbody tr').first();
    await expect.poll(text(row), POLL).toContain('plan the launch of the comet probe');
    expect(await row.getByTestId('context-agent').innerText()).toBe('planner');
    expect(await row.innerText()).not.toContain('unnamed');
    // The id is still there (shortened, whole in its title), no longer the only thing that tells contexts apart.
    expect(await row.locator('.cell-id').getAttribute('title')).toBe(contextId);
  });
});

describe('command palette and shortcuts', () => {
  it('Ctrl+K opens the palette; it goes to a view and runs an action', async () => {
    const { gui: g } = await openWithTask();
    const { page } = g;
    const palette = page.getByTestId('palette');
    expect(await palette.isVisible()).toBe(false);

    await page.keyboard.press('Control+k');
    await expect.poll(() => palette.isVisible(), POLL).toBe(true);
    // Focus is in the box: typing narrows the list; Enter runs the first match.
    await page.keyboard.type('go tasks');
    await expect.poll(() => page.getByTestId('palette-option').allInnerTexts(), POLL).toEqual(['View Go to Tasks']);
    await page.keyboard.press('Enter');
    await expect.poll(() => palette.isVisible(), POLL).toBe(false);
    await expect.poll(() => shown(g, 'tasks'), POLL).toBe(true);

    // The agents are there too, and the actions: switching the theme from the palette. Typed once it is open, as the
    // first time: keys pressed before the dialog shows go to the page.
    await page.keyboard.press('Control+k');
    await expect.poll(() => palette.isVisible(), POLL).toBe(true);
    await page.keyboard.type('planner');
    await expect
      .poll(() => page.getByTestId('palette-option').allInnerTexts(), POLL)
      .toEqual(['Agent planner: open in Agents', 'Agent planner: compose a message']);
    await page.getByTestId('palette-input').fill('theme');
    const before = await page.evaluate(() => document.documentElement.dataset.theme);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme), POLL).toBe(before === 'dark' ? 'light' : 'dark');
    // The action closed the palette: Ctrl+K pressed while it still showed would close it, not open it again.
    await expect.poll(() => palette.isVisible(), POLL).toBe(false);

    // Escape closes it without running anything.
    await page.keyboard.press('Control+k');
    await expect.poll(() => palette.isVisible(), POLL).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => palette.isVisible(), POLL).toBe(false);
    expect(await shown(g, 'tasks')).toBe(true);
  });

  it('? lists the keyboard shortcuts, the palette among them', async () => {
    const { gui: g } = await openWithTask();
    const { page } = g;
    const dialog = page.getByTestId('shortcuts');
    await page.locator('body').click();
    await page.keyboard.press('?');
    await expect.poll(() => dialog.isVisible(), POLL).toBe(true);
    const listed = await dialog.innerText();
    expect(listed).toContain('Keyboard shortcuts');
    expect(listed).toContain('Ctrl+K');
    expect(listed).toContain('Command palette');
    expect(listed).toContain('Go to Tasks');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible(), POLL).toBe(false);
    // Typed into a field, `?` is text, not a shortcut.
    await page.getByTestId('nav-contexts').click();
    await page.fill('input[name=context-name]', '');
    await page.locator('input[name=context-name]').press('?');
    expect(await page.locator('input[name=context-name]').inputValue()).toBe('?');
    expect(await dialog.isVisible()).toBe(false);
  });
});
