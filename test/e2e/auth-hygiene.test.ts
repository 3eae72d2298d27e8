/**
 * Auth hygiene in the web console (Chromium, the real registry, real SDK peers behind a bearer check): Register with
 * Authentication: None for a card that requires a scheme warns, naming it, and one click sets up an auth ref for that
 * scheme, bound to the agent, after which it answers; an agent whose auth ref has no secret in this session is marked
 * in the Agents list with Set secret in place; and a send that fails for a missing secret says what to do in the
 * window (Set secret, beside the error) rather than naming a CLI command.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { CHROMIUM, POLL, startGui, text, type Gui } from '../support/gui.js';
import { startSecuredAgent, type SecuredAgent } from '../support/secured-agent.js';

const TOKEN = 'hygiene-bearer-7c31e0d2a9';

let agent: SecuredAgent;
let box: Sandbox;
let gui: Gui;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `Chromium is expected at ${CHROMIUM} (apt-get install chromium)`).toBe(true);
  agent = await startSecuredAgent({
    token: TOKEN,
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT', description: 'a bearer (JWT) from our IdP' } } },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
  });
  box = sandbox();
  // Two agents bound to keyring refs whose secrets this console has never been given (as after a restart).
  for (const [ref, alias] of [
    ['sec-marked', 'marked'],
    ['sec-sender', 'sender'],
  ]) {
    expect((await box.run(['auth', 'add', ref!, '--keyring-service', 'missive', '--keyring-account', ref!])).code).toBe(0);
    expect((await box.run(['agent', 'add', alias!, agent.baseUrl, '--auth-ref', ref!])).code).toBe(0);
  }
  gui = await startGui(box, { viewport: { width: 1280, height: 800 } });
}, 60_000);

afterAll(async () => {
  await gui?.close();
  box?.dispose();
  await agent?.close();
});

describe('auth hygiene', () => {
  it('warns at Register with Authentication: None, naming the scheme, and one click adds an auth ref for it', async () => {
    const { page, registry } = gui;
    const form = page.getByTestId('agent-add-form');
    await form.locator('input[name=alias]').fill('guarded');
    await form.locator('input[name=baseUrl]').fill(agent.baseUrl);
    expect(await form.locator('select[name=auth-ref]').inputValue()).toBe('');
    await page.getByTestId('agent-register').click();

    const warning = page.getByTestId('auth-needed');
    await expect.poll(text(warning), POLL).toContain('the card of "guarded" requires security scheme "bearer" (HTTP bearer token)');
    expect(await warning.innerText()).toContain('registered with Authentication: None');
    // The card's own words about the scheme are shown whole.
    await expect.poll(text(page.getByTestId('agent-card')), POLL).toContain('a bearer (JWT) from our IdP');

    await page.getByTestId('auth-needed-add').click();
    const refForm = warning.getByTestId('auth-ref-form');
    expect(await refForm.locator('input[name=auth-ref-name]').inputValue()).toBe('guarded-bearer');
    expect(await refForm.locator('select[name=auth-ref-flow]').inputValue()).toBe('bearer');
    await refForm.locator('input[name=auth-ref-secret]').fill(TOKEN);
    await refForm.getByTestId('auth-ref-save').click();

    await expect.poll(text(page.getByTestId('credentials')), POLL).toContain('auth ref "guarded-bearer": sent (same origin)');
    expect(await page.getByTestId('auth-needed').count()).toBe(0);
    const sent = await registry.invoke('messages.send', { agent: 'guarded', inputs: { text: 'hello guarded' } });
    expect(sent.ok, JSON.stringify(sent)).toBe(true);
    expect(agent.requests.at(-1)).toEqual(expect.objectContaining({ authorization: `Bearer ${TOKEN}` }));
  });

  it('marks the agents whose auth ref has no secret in this session, with Set secret in place', async () => {
    const { page } = gui;
    const row = page.getByTestId('agents-table').locator('[data-alias="marked"]');
    await expect.poll(text(row.getByTestId('secret-missing')), POLL).toContain('no secret in this session');
    expect(await page.getByTestId('agents-table').locator('[data-alias="guarded"]').getByTestId('secret-missing').count()).toBe(0);
    await row.getByRole('button', { name: 'Set secret of sec-marked for marked' }).click();
    await row.locator('input[name="inline-secret-sec-marked"]').fill(TOKEN);
    await row.getByTestId('inline-set-secret').click();
    await expect.poll(() => row.getByTestId('secret-missing').count(), POLL).toBe(0);
    // The other agent's ref is still without its secret: still marked.
    expect(await text(page.getByTestId('agents-table').locator('[data-alias="sender"]').getByTestId('secret-missing'))()).toContain('no secret');
  });

  it('a send that fails for a missing secret names the Set secret action, not a CLI command, and it works in place', async () => {
    const { page } = gui;
    await page.getByTestId('nav-compose').click();
    const compose = page.getByTestId('view-compose');
    await compose.locator('select[name=agent]').selectOption('sender');
    await compose.locator('textarea[name=text]').fill('hello sender');
    await compose.getByTestId('send').click();
    const error = compose.getByTestId('error');
    await expect.poll(text(error.getByTestId('error-code')), POLL).toMatch(/missive::auth::keyring_(missing|unavailable)/);
    expect(await error.getByTestId('error-message').innerText()).toContain('auth ref "sec-sender" has no secret in this session');
    const help = await error.getByTestId('error-help').innerText();
    expect(help).toContain('Set secret');
    expect(help).not.toContain('missive auth');
    expect(help).not.toContain('[REDACTED]');
    await error.locator('input[name="inline-secret-sec-sender"]').fill(TOKEN);
    await error.getByTestId('inline-set-secret').click();
    await expect.poll(text(error.getByTestId('secret-saved')), POLL).toContain('try again');
    await compose.getByTestId('send').click();
    await expect.poll(text(compose.getByTestId('answer')), POLL).toContain('hello sender');
    expect(agent.requests.at(-1)).toEqual(expect.objectContaining({ authorization: `Bearer ${TOKEN}` }));
  });
});
