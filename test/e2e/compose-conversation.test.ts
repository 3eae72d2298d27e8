/**
 * Compose as a conversation, in Chromium through the web console against an SDK agent (test/support/conversation-peer.ts),
 * the real registry and SQLite file: turns continue their context until "New conversation"; a task waiting for input
 * (or authorization) is answered in the same task; a push URL per send reaches the webhook receiver; the answer is
 * rendered (sanitised Markdown, a data artifact as a JSON tree, a file artifact saved, stream chunks assembled while
 * the stream runs); and the request and the answer both fit in view at 1280×800, the answer reachable at 900×600.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Locator } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { register } from '../support/agents.js';
import { CHROMIUM, POLL, startGui, readText, text, type Gui } from '../support/gui.js';
import { startRawServer, type RawServer } from '../support/raw-server.js';
import { FILE_TEXT, SIXTEEN_LINES, startConversationPeer, type ConversationPeer } from '../support/conversation-peer.js';

let peer: ConversationPeer;
let box: Sandbox;
let gui: Gui;
let saveDir: string;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM}`).toBe(true);
  peer = await startConversationPeer();
});
afterAll(() => peer.close());
afterEach(async () => {
  await gui?.close();
  box?.dispose();
});

async function open(viewport = { width: 1280, height: 800 }): Promise<Gui> {
  box = sandbox();
  await register(box, { talk: peer });
  saveDir = mkdtempSync(join(tmpdir(), 'missive-save-'));
  gui = await startGui(box, { viewport, chooseDirectory: () => saveDir });
  await gui.page.getByTestId('nav-compose').click();
  return gui;
}

const withDb = <T>(fn: (d: Database.Database) => T): T => readDb(box, fn);
const compose = () => gui.page.getByTestId('view-compose');
const answer = () => compose().getByTestId('answer');
const result = () => compose().getByTestId('send-result');

async function say(message: string, mode: 'send' | 'stream' = 'send') {
  await compose().locator('select[name=mode]').selectOption(mode);
  await compose().locator('textarea[name=text]').fill(message);
  await compose().getByTestId('send').click();
}

/** The journal's requests, oldest first: their text, context and task. */
const requests = () =>
  withDb(
    (d) =>
      d
        .prepare(
          `SELECT json_extract(content_json, '$.parts[0].text') AS text, context_id, task_id FROM messages WHERE direction = 'request' ORDER BY created_at, rowid`,
        )
        .all() as Array<{ text: string; context_id: string | null; task_id: string | null }>,
  );

describe('compose as a conversation', () => {
  it('continues the context turn after turn, starts afresh on New conversation, and continues an older one on request', async () => {
    await open();
    await say('hello');
    await expect.poll(text(answer()), POLL).toBe('turn 1: hello');
    // After a direct message reply: the context, "Continue in this context", and the next turn goes there by itself.
    await expect.poll(() => result().getByTestId('continue-context').isVisible(), POLL).toBe(true);
    expect(await readText(result().getByTestId('continuing'))).toContain('your next message does');
    await say('again');
    await expect.poll(text(answer()), POLL).toBe('turn 2: again');
    const thread = compose().getByTestId('conversation').getByTestId('thread-message');
    await expect.poll(() => thread.count(), POLL).toBe(4);
    expect(await thread.allInnerTexts()).toEqual([
      expect.stringContaining('hello'),
      expect.stringContaining('turn 1: hello'),
      expect.stringContaining('again'),
      expect.stringContaining('turn 2: again'),
    ]);
    const [first, second] = requests();
    expect(first!.context_id).toBeTruthy();
    expect(second!.context_id).toBe(first!.context_id);

    await compose().getByTestId('new-conversation').click();
    await expect.poll(text(compose().getByTestId('conversation-new')), POLL).toContain('first answer starts a context');
    expect(await compose().locator('select[name=context]').inputValue()).toBe('');
    await say('fresh');
    await expect.poll(text(answer()), POLL).toBe('turn 1: fresh');
    // Sent without a context, it joined the one the agent's answer named: a new one.
    const third = requests()[2]!;
    expect(third.context_id).toBeTruthy();
    expect(third.context_id).not.toBe(first!.context_id);
    await expect.poll(() => thread.count(), POLL).toBe(2);

    // Back to the first conversation: picked from the Context list, its thread shows and the next turn is its third.
    await compose().locator('select[name=context]').selectOption(first!.context_id!);
    await expect.poll(() => thread.count(), POLL).toBe(4);
    await say('back again');
    await expect.poll(text(answer()), POLL).toBe('turn 3: back again');
    expect(requests()[3]!.context_id).toBe(first!.context_id);
    await gui.shot('compose-conversation');
  });

  it('answers a task waiting for input, and one waiting for authorization, in the same task', async () => {
    await open();
    await say('ask me something');
    await expect.poll(text(answer()), POLL).toBe('What name should I use?');
    expect(await readText(result())).toContain('input_required');
    await expect.poll(text(result().getByTestId('answer-awaiting')), POLL).toContain('Your next message replies in this task');
    const taskId = withDb((d) => (d.prepare(`SELECT task_id FROM tasks`).get() as { task_id: string }).task_id);
    await expect.poll(() => compose().getByTestId('replying-to').getByTestId('idlink-task').getAttribute('data-id'), POLL).toBe(taskId);
    expect(await readText(compose().getByTestId('send'))).toBe('Reply');
    await say('Ada');
    await expect.poll(text(answer()), POLL).toBe('Thanks, Ada. Task done.');
    expect(await readText(result())).toContain('completed');
    // The reply went in the same task and context; the agent knew it (it completed the task it had asked in).
    const [ask, reply] = requests();
    expect(reply).toMatchObject({ text: 'Ada', task_id: taskId, context_id: ask!.context_id });
    withDb((d) => expect(d.prepare(`SELECT count(*) AS n, max(state) AS state FROM tasks`).get()).toEqual({ n: 1, state: 'completed' }));
    // A finished task is not replied to: the next message starts a new task in the same context.
    expect(await compose().getByTestId('replying-to').count()).toBe(0);

    await say('authorize me');
    await expect.poll(text(answer()), POLL).toBe('Sign in first, then reply with the word ok.');
    expect(await readText(result())).toContain('auth_required');
    await say('ok');
    await expect.poll(text(answer()), POLL).toBe('Authorized with "ok". Task done.');
    const rows = requests();
    expect(rows).toHaveLength(4);
    expect(rows[2]!.task_id).not.toBe(taskId);
    expect(rows[2]!.context_id).toBe(ask!.context_id);
    expect(rows[3]).toMatchObject({ text: 'ok', task_id: rows[2]!.task_id });
    withDb((d) => expect(d.prepare(`SELECT count(*) AS n FROM tasks WHERE state = 'completed'`).get()).toEqual({ n: 2 }));
  });

  it('registers a push URL per send: the agent calls the webhook receiver back for that task', async () => {
    await open();
    const started = (await gui.registry.invoke('webhook.start', {})) as { ok: true; data: { url: string } };
    await compose().locator('.more-options summary').click();
    await compose().locator('input[name=push-url]').fill(started.data.url);
    await say('push it');
    await expect.poll(text(answer()), POLL).toBe('pushed and done');
    const taskId = withDb((d) => (d.prepare(`SELECT task_id FROM tasks`).get() as { task_id: string }).task_id);
    // The request carried the push config, and the agent's callbacks for this task reached the receiver.
    await compose().getByTestId('tab-wire').click();
    const bodies = async () => (await compose().getByTestId('wire-request-body').allInnerTexts()).join('\n');
    await expect.poll(bodies, POLL).toContain(started.data.url);
    await expect
      .poll(
        () => withDb((d) => (d.prepare(`SELECT count(*) AS n FROM events WHERE event_type LIKE 'a2a.push.%' AND task_id = ?`).get(taskId) as { n: number }).n),
        POLL,
      )
      .toBeGreaterThan(0);
    // Without the field, no push config is sent.
    await compose().locator('input[name=push-url]').fill('');
    await compose().getByTestId('tab-answer').click();
    await say('plain turn');
    await expect.poll(text(answer()), POLL).toBe('turn 1: plain turn');
    await compose().getByTestId('tab-wire').click();
    await expect.poll(bodies, POLL).toContain('plain turn');
    expect(await bodies()).not.toContain('taskPushNotificationConfig');
  });
});

describe('the answer rendered', () => {
  it('renders Markdown without running or loading anything the answer names', async () => {
    const remote: RawServer = await startRawServer();
    try {
      await open();
      await say(`markdown ${remote.url}`);
      const md = answer();
      await expect
        .poll(
          () =>
            md
              .locator('h1')
              .innerText()
              .catch(() => ''),
          POLL,
        )
        .toBe('Report');
      expect(await md.locator('strong').innerText()).toBe('bold');
      expect(await md.locator('li').allInnerTexts()).toEqual(['first', 'second']);
      // Raw HTML is shown as text, never made into elements; the remote image is a note, not a fetch.
      expect(await md.locator('script, img, iframe').count()).toBe(0);
      expect(await readText(md)).toContain('<script>window.__mdPwned = 1</script>');
      expect(await readText(md)).toContain(`<img src="${remote.url}/raw.png"`);
      expect(await readText(md.getByTestId('md-blocked-image'))).toContain(`tracker ${remote.url}/tracker.png`);
      expect(await gui.page.evaluate(() => (window as unknown as { __mdPwned?: number }).__mdPwned)).toBeUndefined();
      expect(remote.requests).toEqual([]);
    } finally {
      await remote.close();
    }
  });

  it('shows a data artifact as a JSON tree and saves a file artifact', async () => {
    await open();
    await say('data please');
    const artifact = () => result().getByTestId('answer-artifact');
    await expect.poll(text(artifact()), POLL).toContain('numbers.json');
    const tree = artifact().getByTestId('artifact-data');
    expect(await readText(tree)).toContain('rows: 3');
    expect(await readText(tree)).toContain('ok: true');
    // Collapsible: the nested list starts closed and opens on a click.
    const tags = tree.locator('details.json-node', { has: gui.page.locator('summary', { hasText: 'tags' }) }).last();
    expect(await tags.getAttribute('open')).toBeNull();
    await tags.locator('summary').first().click();
    await expect.poll(() => tags.getAttribute('open'), POLL).toBe('');
    expect(await readText(tags)).toContain('"alpha"');

    await say('file please');
    await expect.poll(text(artifact()), POLL).toContain('hello.txt');
    expect(await readText(artifact().getByTestId('artifact-file'))).toContain('text/plain');
    await artifact().getByTestId('artifact-save').click();
    await expect.poll(text(artifact().getByTestId('artifact-save-status')), POLL).toContain(`Saved 1 file(s) to ${saveDir}`);
    expect(readFileSync(join(saveDir, 'hello.txt'), 'utf8')).toBe(FILE_TEXT);
  });

  it('assembles stream chunks live: the artifact grows and the status messages appear while the stream runs', async () => {
    await open();
    await say('stream a story', 'stream');
    const artifact = result().getByTestId('answer-artifact');
    // Paused after two chunks: both are in one artifact already, and the call is still running.
    await expect
      .poll(
        () =>
          artifact
            .locator('pre')
            .innerText()
            .catch(() => ''),
        POLL,
      )
      .toBe('line 1\nline 2\n');
    expect(await readText(artifact)).toContain('receiving…');
    expect(await readText(answer())).toBe('halfway');
    expect(await compose().getByTestId('send-busy').count()).toBe(1);
    peer.release();
    await expect.poll(text(answer()), POLL).toBe('all done');
    expect(await artifact.locator('pre').innerText()).toBe('line 1\nline 2\nline 3\nline 4\n');
    expect(await readText(artifact)).not.toContain('receiving…');
    expect(await result().getByTestId('answer-notes').locator('li').allInnerTexts()).toEqual([
      expect.stringContaining('starting'),
      expect.stringContaining('halfway'),
    ]);
    // What was assembled is what the journal holds.
    const taskId = withDb((d) => (d.prepare(`SELECT task_id FROM artifacts WHERE artifact_id = 'story'`).get() as { task_id: string }).task_id);
    const shown = (await gui.registry.invoke('artifacts.show', { taskId, artifactId: 'story' })) as unknown as {
      ok: true;
      data: { content: { parts: Array<{ text?: string }> } };
    };
    expect(shown.data.content.parts.map((p) => p.text ?? '').join('')).toBe('line 1\nline 2\nline 3\nline 4\n');
  });
});

/** axe's source, evaluated in the page as a11y.test.ts does (the CSP stays on). */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe's critical and serious violations on the page as it is. */
async function blockingViolations(): Promise<string[]> {
  const { page } = gui;
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(d: Document, o: object): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> };
      }
    ).axe;
    const { violations } = await axe.run(document, { resultTypes: ['violations'] });
    return violations
      .filter((v) => v.impact === 'critical' || v.impact === 'serious')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

describe('accessibility of a rendered answer', () => {
  it('has no critical or serious axe violation with a conversation, Markdown, a data tree and a file, in both themes', async () => {
    await open();
    for (const message of ['hello', 'again', 'markdown http://127.0.0.1:9', 'data please', 'file please']) {
      await say(message);
      await expect.poll(() => compose().getByTestId('send-busy').count(), POLL).toBe(0);
    }
    await say('lines please');
    await expect.poll(text(answer()), POLL).toBe('Here are sixteen lines.');
    for (const theme of ['dark', 'light']) {
      await gui.page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
      expect(await blockingViolations(), theme).toEqual([]);
    }
  });
});

describe('layout', () => {
  const inView = async (locator: Locator, viewport: { width: number; height: number }) => {
    const box = await locator.boundingBox();
    return box !== null && box.y >= 0 && box.x >= 0 && box.y + box.height <= viewport.height && box.x + box.width <= viewport.width;
  };

  it('shows the request box and the answer (a status message and a 16-line artifact) together at 1280×800', async () => {
    const viewport = { width: 1280, height: 800 };
    await open(viewport);
    await say('lines please');
    await expect.poll(text(answer()), POLL).toBe('Here are sixteen lines.');
    const artifact = result().getByTestId('answer-artifact');
    expect(await artifact.locator('pre').innerText()).toBe(SIXTEEN_LINES);
    expect(await inView(compose().locator('textarea[name=text]'), viewport)).toBe(true);
    expect(await inView(compose().getByTestId('send'), viewport)).toBe(true);
    expect(await inView(answer(), viewport)).toBe(true);
    expect(await inView(artifact, viewport)).toBe(true);
    expect(
      await gui.page.evaluate(() => [document.documentElement.scrollHeight <= window.innerHeight, document.documentElement.scrollWidth <= window.innerWidth]),
    ).toEqual([true, true]);
    await gui.shot('compose-answer-1280');
  });

  it('shows the answer at 900×600 as soon as it is asked for, and the request one click away', async () => {
    const viewport = { width: 900, height: 600 };
    await open(viewport);
    await say('lines please');
    await expect.poll(text(answer()), POLL).toBe('Here are sixteen lines.');
    expect(await inView(answer(), viewport)).toBe(true);
    const artifact = result().getByTestId('answer-artifact');
    await artifact.locator('pre').scrollIntoViewIfNeeded();
    expect(await inView(artifact.locator('pre'), viewport)).toBe(true);
    expect(await gui.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await gui.shot('compose-answer-900');
    await compose().getByTestId('compose-show-request').click();
    expect(await inView(compose().locator('textarea[name=text]'), viewport)).toBe(true);
    expect(await inView(compose().getByTestId('send'), viewport)).toBe(true);
    expect(await answer().isVisible()).toBe(false);
    await compose().getByTestId('compose-show-answer').click();
    expect(await inView(answer(), viewport)).toBe(true);
  });
});
