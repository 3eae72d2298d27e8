/**
 * Auth hygiene (issue 35): `agent add` of a card that requires a security scheme, with no credentials, warns and
 * names the scheme; a keyring auth ref without its secret fails with an error that says where the secret was looked
 * for — "no OS keyring" in the window without one, not "no secret in the keyring" — with the CLI's help intact (not
 * garbled by redaction) and, for the window, a help that names its Set secret action.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { startSecuredAgent, type SecuredAgent } from '../support/secured-agent.js';
import { createCore } from '../../electron/core/context.js';
import { createRegistry } from '../../electron/core/ipc/registry.js';
import { createMemorySecretStore, type SecretStore } from '../../electron/core/auth/secret-store.js';

const BEARER = { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT', description: 'a bearer (JWT) from our IdP' } } };

let agent: SecuredAgent;
let box: Sandbox;

beforeAll(async () => {
  agent = await startSecuredAgent({ token: 'tok-5f0c2a9e71', securitySchemes: BEARER, securityRequirements: [{ schemes: { bearer: { list: [] } } }] });
});
afterAll(async () => {
  await agent?.close();
});
afterEach(() => box?.dispose());

describe('agent add: a card that requires a security scheme', () => {
  it('warns on stderr, naming the scheme, when the agent is registered with no credentials; not with an auth ref', async () => {
    box = sandbox({ SEC_TOKEN: 'tok-5f0c2a9e71' });
    const bare = await box.run(['agent', 'add', 'bare', `${agent.baseUrl}/.well-known/agent-card.json`]);
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stderr).toContain('missive: warning: the card of "bare" requires security scheme "bearer" (HTTP bearer token)');
    expect(bare.stderr).toContain('registered with Authentication: None');
    expect(bare.stderr).toContain('missive agent set bare --auth-ref <name>');
    expect((await box.run(['auth', 'add', 'sec-bearer', '--env', 'SEC_TOKEN'])).code).toBe(0);
    const bound = await box.run(['agent', 'add', 'bound', `${agent.baseUrl}/.well-known/agent-card.json`, '--auth-ref', 'sec-bearer']);
    expect(bound.code, bound.stderr).toBe(0);
    expect(bound.stderr).not.toContain('requires security scheme');
  });
});

describe('a keyring auth ref without its secret', () => {
  it('CLI: exit 77 before any request, and the help names set-secret, whole', async () => {
    box = sandbox();
    expect((await box.run(['auth', 'add', 'sec-bearer', '--keyring-service', 'missive', '--keyring-account', 'sec-bearer'])).code).toBe(0);
    expect((await box.run(['agent', 'add', 'secured', agent.baseUrl, '--auth-ref', 'sec-bearer'])).code).toBe(0);
    const before = agent.requests.length;
    const sent = await box.run(['send', 'secured', 'hello', '--json']);
    expect(sent.code).toBe(77);
    const error = JSON.parse(sent.stderr).data;
    expect(error.code).toBe('missive::auth::keyring_missing');
    expect(error.help).toBe('Store one with: missive auth set-secret sec-bearer (reads the secret from stdin).');
    expect(error).not.toHaveProperty('gui_help');
    expect(agent.requests.length).toBe(before);
  });

  it('window without an OS keyring: says there is no keyring, and its help names Set secret', async () => {
    box = sandbox();
    const noKeyring: SecretStore = {
      ...createMemorySecretStore(),
      backend: 'keytar',
      available: async () => ({ ok: false, reason: 'no Secret Service answered (test)' }),
    };
    const core = createCore({ env: box.env, cwd: box.home, secrets: noKeyring });
    const registry = createRegistry({ core, cwd: box.home, emit: () => undefined });
    try {
      expect((await registry.invoke('auth.add', { name: 'sec-bearer', keyringService: 'missive', keyringAccount: 'sec-bearer' })).ok).toBe(true);
      expect((await registry.invoke('agents.add', { alias: 'secured', baseUrl: agent.baseUrl, authRef: 'sec-bearer' })).ok).toBe(true);
      const sent = await registry.invoke('messages.send', { agent: 'secured', inputs: { text: 'hello' } });
      expect(sent.ok).toBe(false);
      const error = !sent.ok ? sent.error : null;
      expect(error?.code).toBe('missive::auth::keyring_unavailable');
      expect(error?.message).toContain('auth ref "sec-bearer" has no secret in this session: no OS keyring (no Secret Service answered (test))');
      expect(error?.message).not.toContain('no secret in the keyring');
      expect(error?.gui_help).toContain('Set secret');
      expect(error?.gui_help).not.toContain('missive auth');
      expect(error?.gui_action).toEqual({ kind: 'set-secret', auth_ref: 'sec-bearer' });
      // Set for this session, the next send carries it.
      expect((await registry.invoke('auth.setSecret', { name: 'sec-bearer', secret: 'tok-5f0c2a9e71' })).ok).toBe(true);
      const again = await registry.invoke('messages.send', { agent: 'secured', inputs: { text: 'hello again' } });
      expect(again.ok, JSON.stringify(again)).toBe(true);
    } finally {
      await registry.dispose();
      core.close();
    }
  });

  it("keeps a card's scheme description whole in inspect", async () => {
    box = sandbox();
    expect((await box.run(['agent', 'add', 'secured', agent.baseUrl])).code).toBe(0);
    const inspected = await box.run(['agent', 'inspect', 'secured', '--json']);
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(inspected.json().data.security.schemes[0].description).toBe('a bearer (JWT) from our IdP');
  });
});
