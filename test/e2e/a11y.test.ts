/**
 * A first accessibility pass: axe-core runs in Debian's Chromium over every view of the console, filled with real
 * data (SDK agents, a send, a task with an artifact, a group, an auth ref without its secret, a running task open beside
 * the Tasks list, an agent's card open beside the Agents list), in both themes. No
 * critical or serious violation may remain; moderate and minor ones are listed in the test output so the next pass
 * can pick them up.
 */
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { CHROMIUM, POLL, startGui, text, type Gui } from '../support/gui.js';

interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** axe's source, evaluated through the DevTools protocol: the page's CSP (script-src 'self') stays on and untouched. */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
let gui: Gui;
let runningTaskId: string;
/** The page's calls still open: its views' loads (the event stream, open for the page's life, is not one). */
const invoking = new Set<unknown>();

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM} (apt-get install chromium)`).toBe(true);
  fleet = await startAgents({ echo: { behaviour: 'echo' }, tasks: { behaviour: 'task' }, slow: { behaviour: 'slow', streaming: false } });
  box = sandbox();
  await register(box, fleet.agents);
  await box.run(['send', 'echo', 'hello']);
  await box.run(['send', 'tasks', 'make a file']);
  await box.run(['group', 'create', 'team', '--member', 'echo', '--member', 'tasks']);
  // A running task on screen (its row selected, its detail followed, with Wait and Cancel): it works for 10 minutes.
  const running = await box.run(['send', 'slow', 'take 600s', '--return-immediately', '--json']);
  runningTaskId = running.json().data.response.task.id;
  // An auth ref on screen (Settings' Set secret / Delete secret, Agents' missing-secret mark): a keyring ref with no
  // secret yet, bound to a second registration of the echo agent.
  expect((await box.run(['auth', 'add', 'a11y-token', '--keyring-service', 'missive', '--keyring-account', 'a11y-token'])).code).toBe(0);
  expect((await box.run(['agent', 'add', 'echo-keyed', fleet.agents.echo!.baseUrl, '--auth-ref', 'a11y-token'])).code).toBe(0);
  gui = await startGui(box, { viewport: { width: 1280, height: 800 } });
  gui.page.on('request', (r) => void (r.url().includes('/api/invoke') && invoking.add(r)));
  gui.page.on('requestfinished', (r) => void invoking.delete(r));
  gui.page.on('requestfailed', (r) => void invoking.delete(r));
}, 60_000);

afterAll(async () => {
  await gui?.close();
  box?.dispose();
  await fleet?.close();
});

/** The nav buttons as the user sees them (data-testid nav-<view>), so a new view is checked without editing this test. */
async function viewIds(): Promise<string[]> {
  const ids = await gui.page.locator('[data-testid^="nav-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice(4)));
  expect(ids.length).toBeGreaterThanOrEqual(7);
  return ids;
}

async function axe(): Promise<AxeViolation[]> {
  const { page } = gui;
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n: any) => ({ target: n.target })) }));
  });
}

const describeViolations = (view: string, list: AxeViolation[]) =>
  list.map(
    (v) =>
      `${view}: [${v.impact}] ${v.id} — ${v.help} (${v.nodes
        .map((n) => n.target.join(' '))
        .slice(0, 3)
        .join(', ')})`,
  );

/** With its detail open: an agent's card beside the Agents list, the running task beside the Tasks list. */
async function openDetail(view: string): Promise<void> {
  const { page } = gui;
  if (view === 'agents') {
    await page.getByRole('button', { name: 'Inspect echo', exact: true }).click();
    await expect.poll(text(page.locator('[data-view=agents] [data-testid=agent-card] h3')), POLL).toContain('echo');
  }
  if (view === 'tasks') {
    await page
      .locator('[data-view=tasks] [data-testid=tasks-table] tbody tr', { hasText: runningTaskId.slice(0, 8) })
      .locator('button.row-link')
      .click();
    await expect.poll(text(page.locator('[data-view=tasks] [data-testid=task-detail]')), POLL).toContain('working');
  }
}

describe('accessibility (axe-core)', () => {
  for (const theme of ['dark', 'light'] as const) {
    it(`has no critical or serious violation in any view, ${theme} theme`, async () => {
      const { page } = gui;
      await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
      const blocking: string[] = [];
      const minor: string[] = [];
      for (const view of await viewIds()) {
        await page.getByTestId(`nav-${view}`).click();
        await expect.poll(text(page.getByTestId(`view-${view}`)), POLL).not.toBe('');
        await openDetail(view);
        // Let the view's first loads settle so axe sees the filled view, not its loading state.
        await expect.poll(() => invoking.size, POLL).toBe(0);
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        const violations = await axe();
        blocking.push(
          ...describeViolations(
            view,
            violations.filter((v) => v.impact === 'critical' || v.impact === 'serious'),
          ),
        );
        minor.push(
          ...describeViolations(
            view,
            violations.filter((v) => v.impact !== 'critical' && v.impact !== 'serious'),
          ),
        );
      }
      if (minor.length) console.info(`axe, moderate and minor (${theme}):\n${minor.join('\n')}`);
      expect(blocking).toEqual([]);
    });
  }
});
