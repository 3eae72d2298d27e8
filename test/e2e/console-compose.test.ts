/**
 * Compose, History, the wire view and "Copy as" in Chromium against real SDK agents, through the real handler
 * registry and SQLite file: Compose keeps its state across views; sends and streams land in History (from the
 * journal), reopen into Compose, re-run and diff; the wire view shows each exchange with credentials redacted and
 * stream frames with arrival times; copy as missive command / curl; a superseded slow call never overwrites a newer
 * answer; History keeps following the journal when a live-tail report arrives while it is starting a reload.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readDb, sandbox, until, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { CHROMIUM, POLL, startGui, readText, text, type Gui } from '../support/gui.js';

const TOKEN = 'r1-bearer-secret-5f0c2a9e71';
let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
let gui: Gui;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM} (apt-get install chromium)`).toBe(true);
  fleet = await startAgents({
    echo: { behaviour: 'echo' },
    chunks: { behaviour: 'chunks', chunks: 3 },
    // Answers like echo, but only after a while: the superseded call of the stale-result test.
    slow: { behaviour: 'echo', delayMs: 2500 },
  });
});
afterAll(() => fleet.close());
afterEach(async () => {
  await gui?.close();
  box?.dispose();
});

/** A sandbox with echo, chunks and slow registered, all three sending a bearer token from R1_TOKEN. */
async function open(viewport = { width: 1280, height: 800 }): Promise<Gui> {
  box = sandbox({ R1_TOKEN: TOKEN });
  await box.run(['auth', 'add', 'bearer', '--env', 'R1_TOKEN']);
  await register(box, fleet.agents, ['--auth-ref', 'bearer']);
  gui = await startGui(box, { viewport });
  return gui;
}

const withDb = <T>(fn: (d: Database.Database) => T): T => readDb(box, fn);
const compose = () => gui.page.getByTestId('view-compose');
const history = () => gui.page.getByTestId('view-history');
const nav = (view: string) => gui.page.getByTestId(`nav-${view}`).click();

async function sendFromCompose(agent: string, message: string, mode: 'send' | 'stream' = 'send') {
  const c = compose();
  await c.locator('select[name=agent]').selectOption(agent);
  await c.locator('select[name=mode]').selectOption(mode);
  await c.locator('textarea[name=text]').fill(message);
  await c.getByTestId('send').click();
}

/** The journal's sends and streams, oldest first, as History should list them (newest first). */
const journalStarts = () =>
  withDb(
    (d) =>
      d
        .prepare(
          `SELECT event_type, agent_alias, json_extract(payload_json, '$.message_id') AS message_id FROM events WHERE event_type IN ('a2a.send.started', 'a2a.stream.started') ORDER BY sequence`,
        )
        .all() as Array<{ event_type: string; agent_alias: string; message_id: string }>,
  );

/** The stream updates the journal holds (each stored once, as its `a2a.stream.<update>` event). */
const streamUpdates = () =>
  withDb(
    (d) =>
      (
        d
          .prepare(
            `SELECT count(*) AS n FROM events WHERE event_type LIKE 'a2a.stream.%' AND event_type NOT IN ('a2a.stream.started', 'a2a.stream.completed', 'a2a.stream.failed')`,
          )
          .get() as { n: number }
      ).n,
  );

/** What "Copy as missive command" gives for `it's $HOME` to echo: POSIX single quotes, nothing expanded. */
const COMMAND = `missive send echo 'it'\\''s $HOME'`;

/** The clipboard's text after a "Copy as" click (the test context grants clipboard access). */
const clipboard = () => gui.page.evaluate(() => navigator.clipboard.readText());

/** What `reportDuringReload` leaves on the page: arm it for the next reload; how many reports it replayed. */
type GapWindow = { __gap: { armed: boolean; replayed: number } };

/**
 * Installed before the page loads: replays the last live-tail report (`events.appended`) on the page's event stream
 * at the moment History's next `history.list` call leaves, once armed. That is what a loaded machine does now and
 * then: a report is delivered while History is starting the reload the previous one asked for, before React has
 * rendered it. The event stream is a streamed fetch of /api/events: its body is passed through frame by frame, and
 * the replay is one more frame (without an id, as a duplicate delivery would be) put between two of them.
 */
function reportDuringReload() {
  const w = window as unknown as GapWindow & { fetch: typeof fetch };
  const inject: Array<(frame: string) => void> = [];
  let last: string | null = null;
  const nativeFetch = w.fetch.bind(window);
  const encoder = new TextEncoder();
  w.__gap = { armed: false, replayed: 0 };
  w.fetch = async (input, init) => {
    const body = typeof init?.body === 'string' ? init.body : '';
    if (w.__gap.armed && last && inject.length && body.includes('"channel":"history.list"')) {
      w.__gap.armed = false;
      w.__gap.replayed++;
      inject.at(-1)!(`data: ${last}\n\n`);
    }
    const response = await nativeFetch(input, init);
    if (!String(input instanceof Request ? input.url : input).includes('/api/events') || !response.body) return response;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    const frames = new ReadableStream<Uint8Array>({
      start(controller) {
        inject.push((frame) => controller.enqueue(encoder.encode(frame)));
        void (async () => {
          let pending = '';
          try {
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              pending += value;
              for (let end = pending.indexOf('\n\n'); end >= 0; end = pending.indexOf('\n\n')) {
                const frame = pending.slice(0, end + 2);
                pending = pending.slice(end + 2);
                const data = /^data: (.*)$/m.exec(frame)?.[1];
                if (data?.includes('"channel":"events.appended"')) last = data;
                controller.enqueue(encoder.encode(frame));
              }
            }
            controller.close();
          } catch (error) {
            controller.error(error);
          }
        })();
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(frames, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

describe('compose and history', () => {
  it('keeps what Compose holds across views, lists sends and streams in History, reopens, re-runs and diffs them', async () => {
    await open();
    const { page } = gui;
    await nav('compose');
    await sendFromCompose('echo', 'first question');
    await expect.poll(text(compose().getByTestId('answer')), POLL).toBe('echo: first question');

    // Another view and back: the inputs, the mode and the answer are still there.
    await nav('agents');
    await expect.poll(() => compose().isVisible(), POLL).toBe(false);
    await nav('tasks');
    await page.keyboard.press('Control+2');
    await expect.poll(() => compose().isVisible(), POLL).toBe(true);
    expect(await compose().locator('textarea[name=text]').inputValue()).toBe('first question');
    expect(await compose().locator('select[name=agent]').inputValue()).toBe('echo');
    expect(await readText(compose().getByTestId('answer'))).toBe('echo: first question');

    // A stream: its timeline survives a trip to another view as well.
    await sendFromCompose('chunks', 'a short story', 'stream');
    await expect.poll(text(compose().getByTestId('send-result')), POLL).toContain('events');
    const events = streamUpdates();
    await nav('events');
    await nav('compose');
    expect(await compose().getByTestId('timeline').locator('li').count()).toBe(events);
    expect(await compose().locator('select[name=mode]').inputValue()).toBe('stream');

    // History lists both, newest first, straight from the journal.
    await nav('history');
    const rows = history().getByTestId('history-row');
    await expect.poll(() => rows.count(), POLL).toBe(2);
    expect(journalStarts().map((s) => [s.event_type, s.agent_alias])).toEqual([
      ['a2a.send.started', 'echo'],
      ['a2a.stream.started', 'chunks'],
    ]);
    await expect.poll(text(rows.nth(0)), POLL).toContain('chunks');
    expect(await readText(rows.nth(0))).toContain('stream');
    expect(await readText(rows.nth(0))).toContain('a short story');
    expect(await readText(rows.nth(1))).toContain('echo: first question');
    // A direct message answer reads `answered` (History's one outcome label per entry).
    expect(await readText(rows.nth(1))).toContain('answered');
    await gui.shot('history');

    // Open the send: its request and answer; open it in Compose after the form was changed.
    await nav('compose');
    await compose().locator('textarea[name=text]').fill('something else');
    await nav('history');
    await rows.nth(1).getByRole('button').click();
    const detail = history().getByTestId('history-detail');
    await expect.poll(text(detail.getByTestId('history-answer')), POLL).toBe('echo: first question');
    expect(await readText(detail.getByTestId('history-request'))).toBe('first question');
    await detail.getByTestId('history-open-compose').click();
    await expect.poll(() => compose().isVisible(), POLL).toBe(true);
    expect(await compose().locator('textarea[name=text]').inputValue()).toBe('first question');
    expect(await compose().locator('select[name=agent]').inputValue()).toBe('echo');
    expect(await compose().locator('select[name=mode]').inputValue()).toBe('send');

    // Re-run it from History: a new entry, at the top, and a new send in the journal.
    await nav('history');
    await detail.getByTestId('history-rerun').click();
    await expect.poll(() => rows.count(), POLL).toBe(3);
    await expect.poll(text(detail.getByTestId('history-rerun-status')), POLL).toContain('Re-ran');
    expect(journalStarts().filter((s) => s.event_type === 'a2a.send.started')).toHaveLength(2);
    await expect.poll(text(rows.nth(0)), POLL).toContain('echo: first question');

    // A different answer, then the diff of the two sends: the changed line, marked.
    await nav('compose');
    await sendFromCompose('echo', 'second question');
    await expect.poll(text(compose().getByTestId('answer')), POLL).toBe('echo: second question');
    await nav('history');
    await expect.poll(() => rows.count(), POLL).toBe(4);
    await rows.nth(0).getByRole('checkbox').check();
    await rows.nth(1).getByRole('checkbox').check();
    await history().getByTestId('history-diff-button').click();
    const answerDiff = history().getByTestId('diff-answer');
    await expect.poll(text(answerDiff), POLL).toContain('-echo: first question');
    expect(await readText(answerDiff)).toContain('+echo: second question');
    await expect.poll(() => history().getByTestId('diff-response').locator('.diff-added').count(), POLL).toBeGreaterThan(0);
    expect(await readText(history().getByTestId('diff-response'))).toContain('echo: second question');
    await gui.shot('history-diff');

    // Filters: only the stream.
    await history().locator('select[name=history-operation]').selectOption('stream');
    await expect.poll(() => rows.count(), POLL).toBe(1);
    await history().locator('select[name=history-operation]').selectOption('');
    await history().locator('select[name=history-agent]').selectOption('echo');
    await expect.poll(() => rows.count(), POLL).toBe(3);
  });

  it('loads older entries page by page', async () => {
    await open();
    for (let i = 0; i < 55; i++) await box.run(['send', 'echo', `note ${i}`]);
    await nav('history');
    const rows = history().getByTestId('history-row');
    await expect.poll(() => rows.count(), POLL).toBe(50);
    await expect.poll(text(rows.nth(0)), POLL).toContain('note 54');
    await history().getByTestId('history-more').click();
    await expect.poll(() => rows.count(), POLL).toBe(55);
    expect(await readText(rows.nth(54))).toContain('note 0');
    expect(await history().getByTestId('history-more').count()).toBe(0);

    // A send from the CLI while older pages are open: offered, not forced, and then at the top.
    await box.run(['send', 'echo', 'from the terminal']);
    await history().getByRole('button', { name: 'Show the newest' }).click({ timeout: POLL.timeout });
    await expect.poll(text(rows.nth(0)), POLL).toContain('from the terminal');
    expect(await rows.count()).toBe(50);
  });

  it('shows sends made elsewhere (the CLI) live', async () => {
    await open();
    await nav('history');
    await expect.poll(text(history().getByTestId('empty')), POLL).toContain('No sends or streams yet');
    await box.run(['send', 'echo', 'typed in a terminal']);
    await expect.poll(text(history().getByTestId('history-row').first()), POLL).toContain('echo: typed in a terminal');
  });

  it('stays current when a live-tail report arrives while History is starting a reload', async () => {
    await open();
    const { page } = gui;
    await page.addInitScript(reportDuringReload);
    await page.reload();
    await nav('history');
    const rows = history().getByTestId('history-row');
    await expect.poll(text(history().getByTestId('empty')), POLL).toContain('No sends or streams yet');
    await box.run(['send', 'echo', 'warm up']);
    await expect.poll(text(rows.first()), POLL).toContain('echo: warm up');

    // The next reload gets a report in its gap; the sends after it still show, each at the top, finished.
    await page.evaluate(() => void ((window as unknown as GapWindow).__gap.armed = true));
    await box.run(['send', 'echo', 'during the gap']);
    await expect.poll(() => page.evaluate(() => (window as unknown as GapWindow).__gap.replayed), POLL).toBe(1);
    await expect.poll(text(rows.first()), POLL).toContain('echo: during the gap');
    await box.run(['send', 'echo', 'after the gap']);
    await expect.poll(text(rows.first()), POLL).toContain('echo: after the gap');
    expect(await rows.count()).toBe(3);
  });

  it('ignores the result of a superseded slow call: only the newer answer shows', async () => {
    await open();
    const { page } = gui;
    // Count the page's settled invokes (the web console's POSTs), to know when the slow call's result has reached it.
    const settled: string[] = [];
    page.on('requestfinished', (request) => void (request.url().endsWith('/api/invoke') && settled.push(request.postDataJSON().channel)));
    await nav('compose');
    await sendFromCompose('slow', 'take your time');
    await expect.poll(text(compose().getByTestId('send-busy')), POLL).toContain('Waiting');
    await sendFromCompose('echo', 'be quick');
    await expect.poll(text(compose().getByTestId('answer')), POLL).toBe('echo: be quick');
    await until(
      'the slow send to finish',
      () => withDb((d) => d.prepare(`SELECT 1 FROM events WHERE event_type = 'a2a.send.completed' AND agent_alias = 'slow'`).get()),
      15_000,
    );
    await expect.poll(() => settled.filter((c) => c === 'messages.send').length, POLL).toBe(2);
    // Two frames later React has rendered whatever the slow result set: the answer is still the quick one.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    expect(await readText(compose().getByTestId('answer'))).toBe('echo: be quick');
    expect(await compose().getByTestId('send-busy').count()).toBe(0);
    expect(await readText(compose().getByTestId('send-result'))).toContain('echo');
    expect(await readText(compose().getByTestId('send-result'))).not.toContain('slow');
  });
});

describe('wire view and copy as', () => {
  it('shows every exchange with the credential redacted, and each stream frame with its arrival time', async () => {
    await open();
    await nav('compose');
    await sendFromCompose('echo', 'show me the wire');
    await expect.poll(text(compose().getByTestId('answer')), POLL).toBe('echo: show me the wire');
    await compose().getByTestId('tab-wire').click();
    const exchange = compose().getByTestId('wire-exchange').first();
    await expect.poll(text(exchange), POLL).toContain(`POST ${fleet.agents.echo!.restUrl}/message:send`);
    expect(await readText(exchange)).toContain('200');
    const headers = await readText(exchange.getByTestId('wire-request-headers'));
    expect(headers.toLowerCase()).toContain('authorization');
    expect(headers).toContain('Bearer [REDACTED]');
    expect(await readText(exchange.getByTestId('wire-request-body'))).toContain('show me the wire');
    expect(await readText(exchange.getByTestId('wire-response-body'))).toContain('echo: show me the wire');
    await gui.shot('compose-wire');
    // The same wire in the dark theme.
    await nav('settings');
    await gui.page.getByRole('button', { name: /Switch to (dark|light) theme/ }).click();
    if ((await gui.page.evaluate(() => document.documentElement.dataset.theme)) !== 'dark')
      await gui.page.getByRole('button', { name: /Switch to dark theme/ }).click();
    await nav('compose');
    await gui.shot('compose-wire-dark');

    await sendFromCompose('chunks', 'stream it', 'stream');
    await expect.poll(text(compose().getByTestId('send-result')), POLL).toContain('events');
    await compose().getByTestId('tab-wire').click();
    const frames = compose().getByTestId('wire-frames').locator('li');
    const recorded = streamUpdates();
    await expect.poll(() => frames.count(), POLL).toBe(recorded);
    const lines = await frames.allInnerTexts();
    expect(lines.every((l) => /^\+\d+ ms/.test(l.trim()))).toBe(true);
    expect(await readText(compose().getByTestId('wire-exchange').first())).toContain(`${fleet.agents.chunks!.restUrl}/message:stream`);
    await gui.shot('compose-wire-stream');

    // History shows the wire of this session's calls; nothing anywhere holds the token.
    await nav('history');
    const rows = history().getByTestId('history-row');
    await expect.poll(() => rows.count(), POLL).toBe(2);
    await rows.nth(1).getByRole('button').click();
    await expect.poll(text(history().getByTestId('history-detail').getByTestId('wire')), POLL).toContain('/message:send');
    expect(await gui.page.content()).not.toContain(TOKEN);
    withDb((d) => {
      for (const table of ['events', 'messages', 'tasks']) {
        const dump = JSON.stringify(d.prepare(`SELECT * FROM ${table}`).all());
        expect(dump, table).not.toContain(TOKEN);
      }
    });
  });

  it("scrolls a long stream's frames in a virtual list: every frame reachable, few in the page", async () => {
    const long = await startAgents({ long: { behaviour: 'chunks', chunks: 400 } });
    try {
      await open();
      await register(box, long.agents);
      await nav('compose');
      await sendFromCompose('long', 'a long one', 'stream');
      await expect.poll(text(compose().getByTestId('send-result')), POLL).toContain('events');
      const recorded = streamUpdates();
      expect(recorded).toBeGreaterThan(400);
      await compose().getByTestId('tab-wire').click();
      await expect.poll(text(compose().getByTestId('wire')), POLL).toContain(`Stream frames (${recorded})`);
      const list = compose().getByTestId('wire-frames');
      const rendered = await list.locator('.wire-frame').count();
      expect(rendered).toBeGreaterThan(0);
      expect(rendered).toBeLessThan(100);
      await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
      await expect.poll(() => list.locator('.wire-frame').last().innerText(), POLL).toContain('statusUpdate');
      expect(await list.locator('.wire-frame').last().innerText()).toMatch(/^\+\d+ ms/);
    } finally {
      await long.close();
    }
  });

  it('shows the wire of a failed call in Compose, and the failure in History', async () => {
    const down = await startAgents({ down: { behaviour: 'echo' } });
    try {
      await open();
      await register(box, down.agents);
      await down.agents.down!.pause();
      await nav('compose');
      await sendFromCompose('down', 'anyone there?');
      const error = compose().getByTestId('error');
      await expect.poll(text(error), POLL).toContain('missive::transport::');
      const failed = compose().getByTestId('failed-wire');
      await expect.poll(text(failed), POLL).toContain(`POST ${down.agents.down!.restUrl}/message:send`);
      expect(await readText(failed)).toContain('missive::transport::');
      await nav('history');
      const row = history().getByTestId('history-row').first();
      await expect.poll(text(row), POLL).toContain('failed');
      expect(await readText(row)).toContain('missive::transport::');
      const code = withDb(
        (d) =>
          d.prepare(`SELECT json_extract(payload_json, '$.error.code') AS code FROM events WHERE event_type = 'a2a.send.failed'`).get() as { code: string },
      );
      expect(await readText(row)).toContain(code.code);
    } finally {
      await down.close();
    }
  });

  it('copies a request as a missive command and as curl, and falls back to a selected text box when the clipboard is refused', async () => {
    await open();
    const { page } = gui;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gui.url });
    await nav('compose');
    await compose().locator('select[name=agent]').selectOption('echo');
    await compose().locator('textarea[name=text]').fill("it's $HOME");
    const copy = compose().getByTestId('compose-copy');
    await copy.getByRole('button', { name: 'Copy as missive command' }).click();
    await expect.poll(text(copy.getByTestId('copy-status')), POLL).toContain('Copied');
    expect(await clipboard()).toBe(COMMAND);

    // Before sending: curl from the preview, the credential as a variable reference.
    await copy.getByRole('button', { name: 'Copy as curl' }).click();
    await expect.poll(clipboard, POLL).toContain(`${fleet.agents.echo!.restUrl}/message:send`);
    const previewed = await clipboard();
    expect(previewed).toContain('$MISSIVE_AUTHORIZATION');
    expect(previewed).not.toContain(TOKEN);
    expect(withDb((d) => d.prepare(`SELECT count(*) AS n FROM events WHERE event_type LIKE 'a2a.send%'`).get())).toEqual({ n: 0 });

    // After sending: curl from the wire, per exchange too.
    await compose().getByTestId('send').click();
    await expect.poll(text(compose().getByTestId('answer')), POLL).toBe("echo: it's $HOME");
    await compose().getByTestId('tab-wire').click();
    await compose().getByTestId('wire').getByRole('button', { name: 'Copy as curl' }).first().click();
    await expect.poll(clipboard, POLL).toContain('-H "Authorization: Bearer $MISSIVE_AUTHORIZATION"');

    // The clipboard refuses: the text is shown, selected, and the live region says so. (A new conversation first: after
    // the answer the next message would continue its context, and the command would say --context.)
    await compose().getByTestId('new-conversation').click();
    await page.evaluate(() => {
      navigator.clipboard.writeText = () => Promise.reject(new DOMException('denied', 'NotAllowedError'));
    });
    await copy.getByRole('button', { name: 'Copy as missive command' }).click();
    const fallback = copy.getByTestId('copy-fallback');
    await expect.poll(() => fallback.inputValue().catch(() => ''), POLL).toBe(COMMAND);
    expect(await readText(copy.getByTestId('copy-status'))).toContain('clipboard was refused');
    expect(await fallback.evaluate((el: HTMLTextAreaElement) => [el.readOnly, el.selectionStart, el.selectionEnd, el === document.activeElement])).toEqual([
      true,
      0,
      COMMAND.length,
      true,
    ]);

    // History: the command of a journaled entry.
    await page.evaluate(() => {
      (navigator.clipboard as any).writeText = Clipboard.prototype.writeText;
    });
    await nav('history');
    await history().getByTestId('history-row').first().getByRole('button').click();
    const hcopy = history().getByTestId('history-copy');
    await hcopy.getByRole('button', { name: 'Copy as missive command' }).click();
    await expect.poll(text(hcopy.getByTestId('copy-status')), POLL).toContain('Copied');
    // The journal remembers the binding the call went over, so the command pins it.
    expect(await clipboard()).toBe(`missive send echo --binding http+json 'it'\\''s $HOME'`);
  });

  it('copies a collective as a command and one curl per member', async () => {
    await open();
    const { page } = gui;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gui.url });
    await box.run(['group', 'create', 'pair', '--member', 'echo', '--member', 'chunks']);
    await nav('collectives');
    const view = page.getByTestId('view-collectives');
    await view.locator('input[name=collective-text]').fill('plan it');
    const copy = view.getByTestId('collective-copy');
    await copy.getByRole('button', { name: 'Copy as missive command' }).click();
    await expect.poll(clipboard, POLL).toContain('missive round pair');
    expect(await clipboard()).toContain("'plan it'");
    await copy.getByRole('button', { name: 'Copy as curl' }).click();
    await expect.poll(clipboard, POLL).toContain('# chunks');
    const curls = await clipboard();
    expect(curls).toContain('# echo');
    expect(curls.match(/^curl /gm)).toHaveLength(2);
    expect(curls).not.toContain(TOKEN);
  });

  it('fits Compose with its wire view at 900×600', async () => {
    await open({ width: 900, height: 600 });
    await nav('compose');
    await sendFromCompose('echo', 'narrow window');
    await expect.poll(text(compose().getByTestId('answer')), POLL).toBe('echo: narrow window');
    await compose().getByTestId('tab-wire').click();
    await expect.poll(() => compose().getByTestId('wire-exchange').count(), POLL).toBeGreaterThan(0);
    expect(await gui.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await gui.shot('compose-wire-900');
    await nav('history');
    await expect.poll(() => history().getByTestId('history-row').count(), POLL).toBe(1);
    expect(await gui.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await gui.shot('history-900');
  });
});
