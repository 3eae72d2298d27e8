/**
 * The agent page's client certificate line, in Chromium through the real handler registry: an agent behind mutual
 * TLS (an SDK agent over node:https with a throw-away CA) is inspected from the GUI with its client certificate, and
 * the page shows the certificate's subject, issuer and expiry, never the key or its passphrase.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeClientTlsDispatchers } from '../../electron/core/agents/client-tls-pool.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { CHROMIUM, POLL, startGui, text, type Gui } from '../support/gui.js';
import { makeTlsFiles, startMtlsAgent, type MtlsAgent, type TlsFiles } from '../support/mtls-peer.js';

let files: TlsFiles;
let agent: MtlsAgent;
let box: Sandbox;
let gui: Gui | undefined;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM} (apt-get install chromium)`).toBe(true);
  files = makeTlsFiles();
  agent = await startMtlsAgent(files);
});
afterAll(async () => {
  await closeClientTlsDispatchers();
  await agent?.close();
  rmSync(files.dir, { recursive: true, force: true });
});
afterEach(async () => {
  await gui?.close();
  gui = undefined;
  box.dispose();
});

describe('client certificate on the agent page', () => {
  it('inspects an mTLS agent and shows its certificate, not its key or passphrase', async () => {
    box = sandbox({ GUI_KEY_PASS: files.passphrase });
    expect((await box.run(['auth', 'add', 'gui-key', '--env', 'GUI_KEY_PASS'])).code).toBe(0);
    const added = await box.run([
      'agent',
      'add',
      'bank',
      agent.baseUrl,
      '--client-cert',
      files.clientCert,
      '--client-key',
      files.clientKeyEncrypted,
      '--ca-cert',
      files.caCert,
      '--key-passphrase-ref',
      'gui-key',
    ]);
    expect(added.code).toBe(0);
    gui = await startGui(box);
    const { page } = gui;
    await page.getByTestId('nav-agents').click();
    await page.getByRole('button', { name: 'Inspect bank' }).click();

    const line = page.getByTestId('client-certificate');
    await expect.poll(text(line), POLL).toContain('CN=missive-test-client');
    const shown = await line.innerText();
    expect(shown).toContain('valid until');
    expect(shown).toContain('issued by CN=missive test CA');
    expect(shown).toContain('passphrase from auth ref "gui-key"');
    expect(await page.getByTestId('client-tls').innerText()).toContain(files.caCert);
    expect(await page.getByTestId('selected-interface').innerText()).toContain(agent.baseUrl);
    const html = await page.content();
    expect(html).not.toContain(files.passphrase);
    expect(html).not.toContain(readFileSync(files.clientKey, 'utf8').split('\n')[1]);
    await gui.shot('client-certificate');
  });
});
