/**
 * The agent page's security section, in Chromium through the real handler registry: an SDK agent whose card declares
 * bearer, API-key, OAuth2 and mutual-TLS schemes is inspected from the GUI; the page lists each scheme with what it
 * asks for, the requirements, and what missive would send (by source, never the token).
 */
import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { CHROMIUM, POLL, startGui, text, type Gui } from '../support/gui.js';
import { startSecuredAgent, type SecuredAgent } from '../support/secured-agent.js';

const TOKEN = 'gui-security-token-0123456789';
let agent: SecuredAgent;
let box: Sandbox;
let gui: Gui | undefined;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM} (apt-get install chromium)`).toBe(true);
  agent = await startSecuredAgent({
    token: TOKEN,
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
      key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
      cc: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://auth.example/token', scopes: { 'a2a.read': 'read' } } } } },
      tls: { mtlsSecurityScheme: {} },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }, { schemes: { cc: { list: ['a2a.read'] } } }],
  });
});
afterAll(() => agent?.close());
afterEach(async () => {
  await gui?.close();
  gui = undefined;
  box.dispose();
});

describe('security schemes on the agent page', () => {
  it('lists the schemes, the requirements and what missive sends (an auth ref, never its token)', async () => {
    box = sandbox({ GUI_TOKEN: TOKEN });
    expect((await box.run(['auth', 'add', 'gui-token', '--env', 'GUI_TOKEN'])).code).toBe(0);
    expect((await box.run(['agent', 'add', 'secured', agent.baseUrl, '--auth-ref', 'gui-token'])).code).toBe(0);
    gui = await startGui(box);
    const { page } = gui;
    await page.getByTestId('nav-agents').click();
    await page.getByRole('button', { name: 'Inspect secured' }).click();

    const table = page.getByTestId('security-schemes');
    await expect.poll(text(table), POLL).toContain('X-API-Key');
    const rows = page.getByTestId('security-scheme');
    expect(await rows.count()).toBe(4);
    const shown = await table.innerText();
    expect(shown).toContain('Bearer token, format JWT');
    expect(shown).toContain('client credentials (token https://auth.example/token); scopes a2a.read');
    expect(shown).toContain('a client certificate');
    expect(await page.getByTestId('security-requirements').innerText()).toBe('bearer or cc (a2a.read)');
    const sends = page.getByTestId('security-sends');
    expect(await sends.innerText()).toContain('auth ref "gui-token" (bearer in header Authorization)');
    expect(await sends.innerText()).toContain('fits bearer, cc, meets a requirement');
    expect(await sends.getAttribute('data-met')).toBe('true');
    expect(await page.content()).not.toContain(TOKEN);
    await gui.shot('security-schemes');
  });
});
