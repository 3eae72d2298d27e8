/**
 * The Settings view's login panel, in Chromium through the real handler registry: a device-code login against a
 * local OAuth2 server shows the verification URL and the code while it waits, and once approved the auth ref shows
 * as logged in with its expiry — never the token.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { CHROMIUM, POLL, startGui, text, type Gui } from '../support/gui.js';
import { startTokenServer, type TokenServer } from '../support/auth-flow-peers.js';

let idp: TokenServer;
let box: Sandbox;
let gui: Gui | undefined;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM} (apt-get install chromium)`).toBe(true);
  idp = await startTokenServer({ clientId: 'gui-app', clientSecret: null, deviceOutcome: 'manual', interval: 0.05 });
  box = sandbox();
});
afterAll(async () => {
  await gui?.close();
  box?.dispose();
  await idp?.close();
});

describe('device-code login in Settings', () => {
  it('shows the verification URL and code, then the logged-in state without the token', async () => {
    const add = await box.run([
      'auth',
      'add',
      'sso',
      '--env',
      'SSO_CLIENT_SECRET',
      '--flow',
      'oauth2_device_code',
      '--issuer',
      idp.url,
      '--client-id',
      'gui-app',
    ]);
    expect(add.code, add.stderr).toBe(0);
    gui = await startGui(box);
    const { page } = gui;
    await page.getByTestId('nav-settings').click();
    const row = page.getByTestId('auth-status-sso');
    await expect.poll(text(row), POLL).toContain('not logged in');
    await row.getByRole('button', { name: 'Log in' }).click();
    const prompt = page.getByTestId('device-code');
    await expect.poll(text(prompt), POLL).toContain('WDJB-MJHT');
    expect(await prompt.innerText()).toContain(`${idp.url}/activate`);
    await gui.shot('auth-device-code');
    idp.approve();
    await expect.poll(text(row), POLL).toContain('logged in · token expires in');
    expect(await prompt.count()).toBe(0);
    expect(idp.issued).toHaveLength(1);
    expect(await page.content()).not.toContain(idp.issued[0]);
  });
});
