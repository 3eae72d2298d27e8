/**
 * The signed-card badge on the agent page, in Chromium through the real handler registry: a card signed with the
 * SDK shows "verified" with its key id, a tampered one "invalid" with the reason, and "Fetch extended card" brings
 * the extended card (with the agent's auth ref) and names the skills it adds.
 */
import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { CHROMIUM, POLL, startGui, text, type Gui } from '../support/gui.js';
import { startSignedAgent, type SignedAgent } from '../support/signed-agent.js';

const TOKEN = 'tok-gui-signed-55e1a0';

let signed: SignedAgent;
let tampered: SignedAgent;
let box: Sandbox;
let gui: Gui | undefined;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM} (apt-get install chromium)`).toBe(true);
  [signed, tampered] = await Promise.all([startSignedAgent({ token: TOKEN }), startSignedAgent({ token: TOKEN, signing: 'tampered' })]);
});
afterAll(async () => void (await Promise.all([signed?.close(), tampered?.close()])));
afterEach(async () => {
  await gui?.close();
  gui = undefined;
  box.dispose();
});

describe('card signature on the agent page', () => {
  it('shows verified with the kid, fetches the extended card, and shows a tampered card as invalid', async () => {
    box = sandbox({ SIGNED_TOKEN: TOKEN });
    expect((await box.run(['auth', 'add', 'signed-ref', '--env', 'SIGNED_TOKEN'])).code).toBe(0);
    expect((await box.run(['agent', 'add', 'sig', signed.baseUrl, '--auth-ref', 'signed-ref'])).code).toBe(0);
    expect((await box.run(['agent', 'add', 'bad', tampered.baseUrl])).code).toBe(0);
    gui = await startGui(box);
    const { page } = gui;
    await page.getByTestId('nav-agents').click();

    await page.getByRole('button', { name: 'Inspect sig' }).click();
    const badge = page.getByTestId('card-signature');
    await expect.poll(text(badge), POLL).toContain('verified');
    expect(await badge.innerText()).toContain('kid card-key-1');
    await page.getByTestId('fetch-extended-card').click();
    await expect.poll(text(page.getByTestId('extended-card')), POLL).toContain('signed agent (extended)');
    expect(await page.getByTestId('extended-card').innerText()).toContain('adds skills: private-reports');
    expect(await page.getByTestId('extended-card-signature').getAttribute('data-status')).toBe('verified');
    expect(await page.content()).not.toContain(TOKEN);

    await page.getByRole('button', { name: 'Inspect bad' }).click();
    await expect.poll(async () => badge.getAttribute('data-status', { timeout: 250 }).catch(() => null), POLL).toBe('invalid');
    expect(await badge.innerText()).toContain('does not match the card');
    // The extended card fetched for "sig" is not shown for "bad".
    expect(await page.getByTestId('extended-card').count()).toBe(0);
    await gui.shot('card-signature');
  });
});
