/**
 * Text from outside cannot forge what the window shows: a card whose name, description and skill hold a right-to-left
 * override, ESC, BEL and NUL, an answer that echoes them, and an error message that carries them are shown with the
 * terminal's visible escapes (`\u202e`, `\x1b`, `\x07`, `\x00`), in plain text, Markdown and the JSON views alike, and no
 * raw control or bidi character reaches the DOM. Debian's Chromium, a real SDK agent (the card and the echo) and a raw
 * node:http peer (the hostile error).
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { CHROMIUM, POLL, readText, startGui, text, type Gui } from '../support/gui.js';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';
import { startEmbeddedAgent, type EmbeddedAgent } from '../../electron/core/demo/embedded-agent.js';

/** The classic file-name spoof (reads as `good…exe.txt`), then ESC with a colour, BEL, NUL and a bidi isolate. */
const EVIL = 'good\u202etxt.exe \u001b[31mRED\u0007bell\u0000nul\u2066iso';
/** As the terminal shows it (shared/visible-text.ts). */
const SHOWN = 'good\\u202etxt.exe \\x1b[31mRED\\x07bell\\x00nul\\u2066iso';
/** In the JSON views. */
const JSON_SHOWN = 'good\\u202etxt.exe \\u001b[31mRED\\u0007bell\\u0000nul\\u2066iso';
/** Without NUL (Markdown turns it into U+FFFD, as CommonMark says). */
const TYPED = 'good\u202etxt.exe \u001b[31mRED\u0007bell';
const TYPED_SHOWN = 'good\\u202etxt.exe \\x1b[31mRED\\x07bell';

let agent: EmbeddedAgent;
let raw: RawServer;
let box: Sandbox;
let gui: Gui;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM} (apt-get install chromium)`).toBe(true);
  agent = await startEmbeddedAgent({ name: EVIL, behaviour: 'echo', skills: [{ id: 'spoof', name: EVIL, description: EVIL, tags: [EVIL] }] });
  raw = await startRawServer();
  raw.route('/broken/.well-known/agent-card.json', (_req, res) => json(res, 200, minimalCard(`${raw.url}/broken`)));
  raw.route('/broken/a2a/rest/message:send', (_req, res) => json(res, 500, { error: { code: 500, message: `refused: ${EVIL}` } }));
  box = sandbox();
  for (const [alias, url] of [
    ['evil', agent.baseUrl],
    ['broken', `${raw.url}/broken`],
  ]) {
    const added = await box.run(['agent', 'add', alias!, url!]);
    expect(added.code, added.stderr).toBe(0);
  }
  gui = await startGui(box);
}, 60_000);

afterAll(async () => {
  await gui?.close();
  box?.dispose();
  await raw?.close();
  await agent?.close();
});

/** Every raw control or bidi character in the page's text and its shown attributes (form fields hold what was typed). */
async function rawCharacters(): Promise<string[]> {
  return gui.page.evaluate(() => {
    // eslint-disable-next-line no-control-regex -- the test looks for raw control characters in what a user sees
    const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
    const found: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (parent?.closest('textarea')) continue;
      if (RAW.test(node.nodeValue ?? '')) found.push(`${JSON.stringify(node.nodeValue)} in <${parent?.tagName.toLowerCase()} ${parent?.dataset.testid ?? ''}>`);
    }
    for (const el of document.body.querySelectorAll('[title], [aria-label], [alt]')) {
      for (const name of ['title', 'aria-label', 'alt']) {
        const value = el.getAttribute(name);
        if (value && RAW.test(value)) found.push(`${name}=${JSON.stringify(value)}`);
      }
    }
    return found;
  });
}

describe('outside text in the window', () => {
  it("shows a card's control and bidi characters as visible escapes: name, description, skills, the raw JSON and the tree", async () => {
    const { page } = gui;
    await expect.poll(text(page.getByTestId('agents-table')), POLL).toContain('evil');
    await page.getByRole('button', { name: 'Inspect evil' }).click();
    const card = page.getByTestId('agent-card');
    await expect.poll(text(card), POLL).toContain(SHOWN);
    // Opened, the raw card and the tree of everything inspect returned show the escapes too.
    await card.getByText('The card as served (raw JSON)').click();
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
    const shown = await readText(card);
    expect(shown).toContain(`Skills\n${SHOWN}`);
    // The JSON views: JSON's own escapes for C0 (`\u001b`), the window's for the bidi characters JSON leaves raw.
    expect(shown).toContain(`"name": "${JSON_SHOWN}"`);
    expect(shown).toContain(`name: "${JSON_SHOWN}"`);
    expect(await rawCharacters()).toEqual([]);
    await gui.shot('outside-text-card');
  });

  it('shows an answer that echoes them (Markdown) and an error message that carries them with visible escapes', async () => {
    const { page } = gui;
    await page.getByTestId('nav-compose').click();
    await page.selectOption('select[name=agent]', 'evil');
    await page.fill('textarea[name=text]', TYPED);
    await page.getByTestId('send').click();
    await expect.poll(text(page.getByTestId('answer')), POLL).toBe(`echo: ${TYPED_SHOWN}`);
    expect(await rawCharacters()).toEqual([]);

    await page.selectOption('select[name=agent]', 'broken');
    await page.fill('textarea[name=text]', 'hi');
    await page.getByTestId('send').click();
    // The core already turns the C0 controls of an error message into spaces; the bidi characters are the window's.
    await expect.poll(text(page.getByTestId('error-message')), POLL).toContain('refused: good\\u202etxt.exe [31mRED bell nul\\u2066iso');
    expect(await rawCharacters()).toEqual([]);
    await gui.shot('outside-text-answer');
  });
});
