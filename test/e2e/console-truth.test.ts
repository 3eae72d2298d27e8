/**
 * Truthful state in the web console, in Chromium against real SDK agents (and a raw node:http JSON-RPC peer) through
 * the real handler registry and SQLite file: a finished task keeps its final state and its old time after GetTask and
 * Wait; a state that is not final reads "last known" and opening the task asks the agent; History never reads
 * "completed · failed"; a JSON-RPC error answered with HTTP 200 is marked as an error in the wire view; error boxes
 * show message, code and help, never a CLI exit code; a GUI send journals source `gui` (the CLI's stays `cli`); a core
 * warning about a credential on a connection without TLS shows as a dismissible notice; the theme survives a reload.
 */
import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { CHROMIUM, POLL, startGui, text, type Gui } from '../support/gui.js';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';
import { makeTlsFiles, type TlsFiles } from '../support/mtls-peer.js';
import { sqliteStore } from '../support/sqlite-store.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let raw: RawServer;
let tls: TlsFiles;
let box: Sandbox;
let gui: Gui | undefined;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM} (apt-get install chromium)`).toBe(true);
  fleet = await startAgents({
    tasks: { behaviour: 'task' },
    quick: { behaviour: 'slow', delayMs: 800 },
    failer: { behaviour: 'fail' },
    echo: { behaviour: 'echo' },
  });
  // A JSON-RPC agent that answers every call with a JSON-RPC error inside an HTTP 200, as JSON-RPC does.
  raw = await startRawServer();
  raw.route('/.well-known/agent-card.json', (_req, res) =>
    json(
      res,
      200,
      minimalCard(raw.url, { name: 'overloaded', supportedInterfaces: [{ url: `${raw.url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] }),
    ),
  );
  raw.route('/rpc', (_req, res, body) => {
    const id = (JSON.parse(body) as { id?: unknown }).id ?? null;
    json(res, 200, { jsonrpc: '2.0', id, error: { code: -32603, message: 'the model is overloaded' } });
  });
  tls = makeTlsFiles();
});
afterAll(async () => {
  await fleet.close();
  await raw.close();
});
afterEach(async () => {
  await gui?.close();
  gui = undefined;
  box.dispose();
});

async function open(): Promise<Gui> {
  gui = await startGui(box, { viewport: { width: 1280, height: 800 } });
  return gui;
}

/** Opens History's newest entry (its detail) and re-runs it: a send made from the GUI. */
async function rerunNewest(g: Gui) {
  await g.page.getByTestId('nav-history').click();
  await g.page.getByTestId('history-row').first().locator('.history-open').click();
  await expect.poll(() => g.page.getByTestId('history-rerun').isEnabled(), POLL).toBe(true);
  await g.page.getByTestId('history-rerun').click();
}

describe('Tasks: the real state, with its last change', () => {
  it('a task that finished long ago keeps its final state and its old time after GetTask, and offers no Wait or Cancel', async () => {
    box = sandbox();
    await register(box, { tasks: fleet.agents.tasks! });
    const taskId: string = (await box.run(['send', 'tasks', 'count the moons', '--json'])).json().data.response.task.id;
    const { page, core } = await open();
    // The task finished three hours ago (the journal's row says so).
    const longAgo = new Date(Date.now() - 3 * 3600_000).toISOString();
    (await sqliteStore(core)).db.prepare(`UPDATE tasks SET updated_at = ? WHERE task_id = ?`).run(longAgo, taskId);

    await page.getByTestId('nav-tasks').click();
    const row = page.locator('.task-row', { hasText: taskId });
    await expect.poll(text(row.getByTestId('task-updated')), POLL).toContain('3 h ago');
    expect(await row.getByTestId('task-state').innerText()).toBe('completed');
    await row.click();
    const detail = page.getByTestId('task-detail');
    await expect.poll(text(page.getByTestId('task-detail-state')), POLL).toContain('completed');

    // Asking the agent again changes nothing: the time stays the time of the last change, not of the question.
    await detail.getByRole('button', { name: `Refresh task ${taskId}` }).click();
    await expect.poll(text(detail.getByTestId('followed-source')), POLL).toContain('GetTask');
    expect(await page.getByTestId('task-detail-state').innerText()).toContain('3 h ago');
    // A final task is not waited on or cancelled (issue 35): neither is offered.
    expect(await detail.getByRole('button', { name: /^(Wait for|Cancel) task/ }).count()).toBe(0);
    expect(await row.getByTestId('task-updated').innerText()).toContain('3 h ago');
    expect(readDb(box, (d) => (d.prepare(`SELECT updated_at FROM tasks WHERE task_id = ?`).get(taskId) as { updated_at: string }).updated_at)).toBe(longAgo);
  });

  it('a state that is not final reads "last known"; opening the task asks the agent, which finished it since', async () => {
    box = sandbox();
    await register(box, { quick: fleet.agents.quick! });
    const sent = (await box.run(['send', 'quick', 'take 800ms', '--return-immediately', '--json'])).json().data;
    const taskId: string = sent.response.task.id;
    const { page } = await open();
    await page.getByTestId('nav-tasks').click();
    const row = page.locator('.task-row', { hasText: taskId });
    await expect.poll(text(row.getByTestId('task-state')), POLL).toBe('working (last known)');

    // Opening it asks the agent (GetTask); once the agent has finished, that is what the detail and the row show.
    await expect
      .poll(async () => {
        await row.click();
        return text(page.getByTestId('task-detail-state'))();
      }, POLL)
      .toContain('completed');
    // Followed until final (components/FollowedTask.tsx): the agent's state, not the journal's last known one.
    await expect.poll(text(page.getByTestId('task-detail').getByTestId('followed-state')), POLL).toBe('completed');
    await expect.poll(text(row.getByTestId('task-state')), POLL).toBe('completed');
  });
});

describe('History and the wire view say what happened', () => {
  it('a call that returned a failed task reads "task failed", never "completed · failed"', async () => {
    box = sandbox();
    await register(box, { failer: fleet.agents.failer!, echo: fleet.agents.echo! });
    await box.run(['send', 'failer', 'launch the rocket']);
    await box.run(['send', 'echo', 'hello there']);
    const { page } = await open();
    await page.getByTestId('nav-history').click();
    const rows = page.getByTestId('history-row');
    await expect.poll(() => rows.count(), POLL).toBe(2);
    const failed = rows.filter({ hasText: 'launch the rocket' }).getByTestId('history-outcome');
    expect(await failed.innerText()).toBe('task failed');
    expect(await failed.locator('.state-failed').count()).toBe(1);
    expect(await rows.filter({ hasText: 'hello there' }).getByTestId('history-outcome').innerText()).toBe('answered');
    expect(await page.getByTestId('history-list').innerText()).not.toContain('completed · failed');
  });

  it('a JSON-RPC error in an HTTP 200 is marked as an error in the wire view', async () => {
    box = sandbox();
    expect((await box.run(['agent', 'add', 'overloaded', raw.url])).code).toBe(0);
    await box.run(['send', 'overloaded', 'are you there?']);
    const g = await open();
    const { page } = g;
    await rerunNewest(g);
    // The failed re-run's error box: what went wrong and its code, no CLI exit code.
    const failure = page.getByTestId('history-detail').getByTestId('error');
    await expect.poll(text(failure), POLL).toContain('the model is overloaded');
    expect(await failure.getByTestId('error-code').innerText()).toBe('missive::protocol::jsonrpc_error');
    expect(await failure.innerText()).not.toMatch(/exit/i);

    // The re-run is the newest entry: its wire shows the 200 as the JSON-RPC error it carried.
    await expect.poll(() => page.getByTestId('history-row').count(), POLL).toBe(2);
    await page.getByTestId('history-row').first().locator('.history-open').click();
    const status = page.getByTestId('wire-status').first();
    await expect.poll(text(status), POLL).toBe('200 · JSON-RPC error -32603');
    expect(await status.getAttribute('data-failed')).toBe('true');
    expect(await status.getAttribute('class')).toContain('bad');
    expect(await page.getByTestId('wire-rpc-error').innerText()).toContain('the model is overloaded');
    await g.shot('wire-jsonrpc-error');
  });
});

describe('error boxes', () => {
  it('show the error’s message, code and help, and no CLI exit code', async () => {
    box = sandbox();
    await register(box, { quick: fleet.agents.quick! });
    const taskId: string = (await box.run(['send', 'quick', 'take 5m', '--return-immediately', '--json'])).json().data.task.task_id;
    const { page } = await open();
    // The agent stops: cancelling its task fails, and the error box says why.
    await fleet.agents.quick!.pause();
    try {
      await page.getByTestId('nav-tasks').click();
      await page.locator('.task-row', { hasText: taskId }).click();
      const detail = page.getByTestId('task-detail');
      await detail.getByRole('button', { name: `Cancel task ${taskId}` }).click();
      const error = detail.getByTestId('followed-cancel-error').getByTestId('error');
      await expect.poll(text(error.getByTestId('error-message')), POLL).toContain('refused the connection');
      expect(await error.getByTestId('error-code').innerText()).toBe('missive::transport::connection_refused');
      expect(await error.getByTestId('error-help').innerText()).toContain('Is the agent running on that host and port?');
      expect(await error.innerText()).not.toMatch(/exit/i);
      expect(await page.getByTestId('view-tasks').innerText()).not.toMatch(/\(exit \d+\)/);
    } finally {
      await fleet.agents.quick!.resume();
    }
  });
});

describe('signals from the core', () => {
  it('events written by a GUI send say source gui; the CLI’s say cli', async () => {
    box = sandbox();
    await register(box, { echo: fleet.agents.echo! });
    await box.run(['send', 'echo', 'from the terminal']);
    const g = await open();
    await rerunNewest(g);
    const sources = () =>
      readDb(box, (d) => d.prepare(`SELECT source, count(*) AS n FROM events WHERE event_type LIKE 'a2a.send.%' GROUP BY source ORDER BY source`).all());
    await expect.poll(sources, POLL).toEqual([
      { source: 'cli', n: 2 },
      { source: 'gui', n: 2 },
    ]);
    // Events shows it too.
    await g.page.getByTestId('nav-events').click();
    await g.page.locator('.event-row', { hasText: 'a2a.send.started' }).last().click();
    await expect.poll(text(g.page.getByTestId('event-detail')), POLL).toMatch(/Source\s+gui/);
  });

  it('a credential on a connection without TLS: the core’s warning shows as a notice, which can be dismissed', async () => {
    box = sandbox();
    // A client certificate configured for an agent served over plain http (loopback): it is a credential that
    // cannot be presented, and the core warns about it.
    expect((await box.run(['agent', 'add', 'plain', fleet.agents.echo!.baseUrl, '--client-cert', tls.clientCert, '--client-key', tls.clientKey])).code).toBe(0);
    await box.run(['send', 'plain', 'over plain http']);
    const g = await open();
    const notices = g.page.getByTestId('notice');
    expect(await notices.count()).toBe(0);
    await rerunNewest(g);
    await expect.poll(text(notices.first()), POLL).toContain('the client certificate of "plain" is not presented');
    expect(await notices.first().innerText()).toContain('is not TLS');
    await g.shot('notice-plain-http');
    await notices
      .first()
      .getByRole('button', { name: /Dismiss/ })
      .click();
    await expect.poll(() => notices.count(), POLL).toBe(0);
  });

  it('the theme is remembered across a reload', async () => {
    box = sandbox();
    const { page } = await open();
    const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
    const first = await theme();
    await page.getByTestId('nav-settings').click();
    await page.getByRole('button', { name: /Switch to (light|dark) theme/ }).click();
    const picked = first === 'dark' ? 'light' : 'dark';
    await expect.poll(theme, POLL).toBe(picked);
    await page.reload();
    await expect.poll(() => page.getByTestId('nav-agents').isVisible(), POLL).toBe(true);
    expect(await theme()).toBe(picked);
  });
});
