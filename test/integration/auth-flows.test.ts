/**
 * Auth flows against SDK agents behind real auth middleware: Basic, an API key in a header, the query or a cookie, and
 * Bearer tokens issued by a local OAuth2 server (client credentials, device code, OpenID Connect discovery). Tokens are
 * cached and reused, renewed before they expire, and never reach SQLite, output, the journal or the wire view.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stateBytes, sandbox, type Sandbox } from '../support/cli.js';
import { startGuardedAgent, startTokenServer, type GuardedAgent, type TokenServer } from '../support/auth-flow-peers.js';
import { startAgents } from '../support/agents.js';

const PASSWORD = 'pw-7c2e91d04ab35f68';
const API_KEY = 'key-5b8d03e6f1a24c97';
const CLIENT_SECRET = 'cs-3e9a6f1d7c2b5a80';

const bearerOf = (headers: Record<string, string | string[] | undefined>) => String(headers.authorization ?? '').replace(/^Bearer /, '');

let box: Sandbox;
const closers: Array<() => Promise<void>> = [];
beforeEach(() => {
  box = sandbox({ PW: PASSWORD, KEY: API_KEY, CS: CLIENT_SECRET });
});
afterEach(async () => {
  box.dispose();
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** Everything a user or a file on disk could show: outputs given, the SQLite files and the journal export. */
async function expectNoLeak(outputs: string[], secrets: string[]) {
  const journal = await box.run(['events', 'list', '--json']);
  const everything = [...outputs, journal.stdout, journal.stderr, stateBytes(box.home)].join('\n');
  for (const secret of secrets) expect(everything).not.toContain(secret);
}

async function guarded(
  accept: Parameters<typeof startGuardedAgent>[0],
  cardExtra?: Record<string, unknown>,
  options?: { grpc?: boolean },
): Promise<GuardedAgent> {
  const agent = await startGuardedAgent(accept, cardExtra, options);
  closers.push(() => agent.close());
  return agent;
}

async function tokenServer(options: Parameters<typeof startTokenServer>[0]): Promise<TokenServer> {
  const server = await startTokenServer(options);
  closers.push(() => server.close());
  return server;
}

describe('basic and API keys', () => {
  it('sends HTTP Basic with the username and the password from the env', async () => {
    const expected = `Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}`;
    const agent = await guarded((req) => req.headers.authorization === expected);
    expect((await box.run(['auth', 'add', 'b', '--env', 'PW', '--flow', 'basic', '--username', 'alice'])).code).toBe(0);
    expect((await box.run(['agent', 'add', 'basic', agent.baseUrl, '--auth-ref', 'b'])).code).toBe(0);
    const sent = await box.run(['send', 'basic', 'hello', '--json', '--show-wire']);
    expect(sent.code).toBe(0);
    expect(JSON.stringify(sent.json().data)).toContain('echo: hello');
    expect(agent.requests.every((r) => r.accepted)).toBe(true);
    const list = await box.run(['auth', 'list', '--json']);
    expect(list.json().data.auth_refs[0]).toMatchObject({ name: 'b', flow: { type: 'basic', username: 'alice' } });
    expect((await box.run(['auth', 'list'])).stdout).toMatch(/b\s+basic/);
    await expectNoLeak([sent.stdout, sent.stderr, list.stdout], [PASSWORD, expected.slice(6)]);
  });

  for (const place of ['header', 'query', 'cookie'] as const) {
    it(`sends an API key in the ${place}, on the card fetch, sends and streams, on both bindings`, async () => {
      const accept = {
        header: (req: { headers: Record<string, unknown> }) => req.headers['x-api-key'] === API_KEY,
        query: (req: { query: Record<string, unknown> }) => req.query.api_key === API_KEY,
        cookie: (req: { headers: Record<string, unknown> }) => req.headers.cookie === `session=${API_KEY}`,
      }[place] as (req: unknown) => boolean;
      const agent = await guarded((req) => accept(req));
      const name = { header: 'X-API-Key', query: 'api_key', cookie: 'session' }[place];
      expect((await box.run(['auth', 'add', 'k', '--env', 'KEY', '--flow', 'api_key', '--in', place, '--key-name', name])).code).toBe(0);
      expect((await box.run(['agent', 'add', 'keyed', agent.baseUrl, '--auth-ref', 'k'])).code).toBe(0);
      const outputs: string[] = [];
      for (const binding of ['http+json', 'json-rpc']) {
        const sent = await box.run(['send', 'keyed', `hi ${binding}`, '--binding', binding, '--json', '--show-wire']);
        expect(sent.code, sent.stderr).toBe(0);
        expect(JSON.stringify(sent.json().data)).toContain(`echo: hi ${binding}`);
        // The wire view shows where the key went, never the key.
        if (place === 'query') expect(sent.json().data.wire[0].request.url).toMatch(/[?&]api_key=[^&]*REDACTED/);
        const streamed = await box.run(['stream', 'keyed', 'go', '--binding', binding, '--json', '--show-wire']);
        expect(streamed.code, streamed.stderr).toBe(0);
        outputs.push(sent.stdout, sent.stderr, streamed.stdout, streamed.stderr);
      }
      const card = agent.requests.filter((r) => r.path.includes('agent-card.json'));
      expect(card.length).toBeGreaterThan(0);
      expect(agent.requests.length).toBeGreaterThan(4);
      expect(agent.requests.every((r) => r.accepted)).toBe(true);
      await expectNoLeak(outputs, [API_KEY]);
    });
  }

  it('refuses an API key in the query over gRPC, which has no query, before sending (exit 77)', async () => {
    const fleet = await startAgents({ both: { behaviour: 'echo', grpc: true } });
    closers.push(() => fleet.close());
    await box.run(['auth', 'add', 'k', '--env', 'KEY', '--flow', 'api_key', '--in', 'query', '--key-name', 'api_key']);
    const grpcOrigin = `http://${fleet.agents.both!.grpcTarget}`;
    expect((await box.run(['agent', 'add', 'both', fleet.agents.both!.baseUrl, '--auth-ref', 'k', '--trust-origin', grpcOrigin])).code).toBe(0);
    const res = await box.run(['send', 'both', 'hi', '--binding', 'grpc', '--json']);
    expect(res.code).toBe(77);
    expect(JSON.parse(res.stderr).data).toMatchObject({ code: 'missive::auth::query_key_over_grpc', help: expect.stringMatching(/--binding http\+json/) });
    expect(res.stderr).not.toContain(API_KEY);
    expect((await box.run(['send', 'both', 'hi', '--binding', 'http+json', '--json'])).code).toBe(0);
  });

  it('reads api_key and basic flows from the config file', async () => {
    const agent = await guarded((req) => req.headers['x-api-key'] === API_KEY);
    const dir = join(box.home, 'config');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'config.toml'),
      [
        'schema_version = "missive.config.v1"',
        '[auth_refs.cfgkey]',
        'kind = "env"',
        'env = "KEY"',
        'flow = "api_key"',
        'in = "header"',
        'name = "X-API-Key"',
        '[agents.cfg]',
        `base_url = "${agent.baseUrl}"`,
        'auth_ref = "cfgkey"',
      ].join('\n'),
    );
    const sent = await box.run(['send', 'cfg', 'from config', '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    const list = await box.run(['auth', 'list', '--json']);
    expect(list.json().data.auth_refs[0]).toMatchObject({ name: 'cfgkey', source: 'config_seed', flow: { type: 'api_key', in: 'header', name: 'X-API-Key' } });
  });

  it('refuses an incomplete flow in the config (exit 78) and in auth add (exit 64)', async () => {
    const dir = join(box.home, 'config');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.toml'), ['[auth_refs.x]', 'kind = "env"', 'env = "KEY"', 'flow = "basic"'].join('\n'));
    const bad = await box.run(['auth', 'list']);
    expect(bad.code).toBe(78);
    expect(bad.stderr).toContain('username');
    writeFileSync(join(dir, 'config.toml'), '');
    const add = await box.run(['auth', 'add', 'cc', '--env', 'CS', '--flow', 'oauth2_client_credentials', '--client-id', 'c1']);
    expect(add.code).toBe(64);
    expect(add.stderr).toMatch(/token_url or issuer/);
    const stray = await box.run(['auth', 'add', 'b', '--env', 'PW', '--flow', 'basic', '--username', 'u', '--key-name', 'X-Key']);
    expect(stray.code).toBe(64);
    expect(stray.stderr).toMatch(/flow "basic" does not use name/);
    expect((await box.run(['auth', 'list', '--json'])).json().data.auth_refs).toEqual([]);
  });
});

describe('OAuth2 client credentials', () => {
  async function setup(options: Partial<Parameters<typeof startTokenServer>[0]> = {}, how: 'token-url' | 'issuer' = 'token-url') {
    const idp = await tokenServer({ clientId: 'missive-client', clientSecret: CLIENT_SECRET, ...options });
    const agent = await guarded((req) => idp.isValid(bearerOf(req.headers)));
    const where = how === 'token-url' ? ['--token-url', `${idp.url}/token`] : ['--issuer', idp.url];
    const add = await box.run([
      'auth',
      'add',
      'cc',
      '--env',
      'CS',
      '--flow',
      'oauth2_client_credentials',
      ...where,
      '--client-id',
      'missive-client',
      '--scope',
      'a2a.read',
      '--audience',
      'agents',
    ]);
    expect(add.code, add.stderr).toBe(0);
    expect((await box.run(['agent', 'add', 'secured', agent.baseUrl, '--auth-ref', 'cc'])).code).toBe(0);
    return { idp, agent };
  }

  it('fetches a token with the client secret as HTTP Basic, sends with it, and reuses it from the cache', async () => {
    const { idp, agent } = await setup();
    const first = await box.run(['send', 'secured', 'one', '--json', '--show-wire']);
    expect(first.code, first.stderr).toBe(0);
    const second = await box.run(['send', 'secured', 'two', '--json', '--binding', 'json-rpc']);
    expect(second.code, second.stderr).toBe(0);
    expect(idp.calls['token:client_credentials']).toBe(1);
    const tokenCall = idp.received.find((r) => r.path === '/token')!;
    expect(tokenCall.authorization).toBe(`Basic ${Buffer.from(`missive-client:${CLIENT_SECRET}`).toString('base64')}`);
    expect(tokenCall.body).toEqual({ grant_type: 'client_credentials', scope: 'a2a.read', audience: 'agents' });
    expect(agent.requests.every((r) => r.accepted && bearerOf(r.headers) === idp.issued[0])).toBe(true);
    // Cached in the keyring with its expiry, under missive-oauth / <profile>/<ref>.
    const cached = JSON.parse((await box.secrets.get('missive-oauth', 'default/cc'))!);
    expect(cached.access_token).toBe(idp.issued[0]);
    expect(cached.expires_at).toBeGreaterThan(Date.now());
    const status = await box.run(['auth', 'status', 'cc', '--json']);
    expect(status.json().data.auth_refs[0]).toMatchObject({
      name: 'cc',
      flow: 'oauth2_client_credentials',
      secret_present: true,
      token_status: { cached: true, fresh: true },
    });
    expect(status.json().data.auth_refs[0].token_status.expires_in).toBeGreaterThan(3000);
    await expectNoLeak([first.stdout, first.stderr, second.stdout, second.stderr, status.stdout], [idp.issued[0]!, CLIENT_SECRET]);
  });

  it('discovers the token endpoint from the issuer (OpenID Connect)', async () => {
    const { idp } = await setup({}, 'issuer');
    const sent = await box.run(['send', 'secured', 'via discovery', '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(idp.calls.discovery).toBe(1);
    expect(idp.calls['token:client_credentials']).toBe(1);
  });

  it('renews a token that is about to expire, before each request that would carry it', async () => {
    // 30 s of life is inside the 60 s skew: every request renews, and each carries the newest token.
    const { idp, agent } = await setup({ expiresIn: 30 });
    expect((await box.run(['send', 'secured', 'a', '--json'])).code).toBe(0);
    expect((await box.run(['send', 'secured', 'b', '--json'])).code).toBe(0);
    const carried = agent.requests.map((r) => bearerOf(r.headers));
    expect(idp.calls['token:client_credentials']).toBe(carried.length);
    expect(new Set(carried).size).toBe(carried.length);
    expect(carried).toEqual(idp.issued);
  });

  it('renews with the refresh token when the endpoint gave one', async () => {
    const { idp, agent } = await setup({ expiresIn: 30, refreshTokens: true });
    expect((await box.run(['send', 'secured', 'a', '--json'])).code).toBe(0);
    expect((await box.run(['send', 'secured', 'b', '--json'])).code).toBe(0);
    expect(idp.calls['token:client_credentials']).toBe(1);
    expect(idp.calls['token:refresh_token']).toBe(agent.requests.length - 1);
    expect(idp.received.filter((r) => r.body.grant_type === 'refresh_token').every((r) => r.body.refresh_token?.startsWith('rt-'))).toBe(true);
    expect(agent.requests.every((r) => r.accepted)).toBe(true);
  });

  it('renews the token once when the agent answers 401 to it: sends, streams and the card fetch', async () => {
    const { idp, agent } = await setup();
    expect((await box.run(['send', 'secured', 'a', '--json'])).code).toBe(0);
    idp.revokeAll();
    const again = await box.run(['send', 'secured', 'b', '--json', '--show-wire']);
    expect(again.code, again.stderr).toBe(0);
    expect(idp.calls['token:client_credentials']).toBe(2);
    const statuses = again.json().data.wire.map((w: { response: { status: number } | null }) => w.response?.status);
    expect(statuses.slice(-2)).toEqual([401, 200]);
    expect(bearerOf(agent.requests.at(-1)!.headers)).toBe(idp.issued[1]);
    idp.revokeAll();
    const streamed = await box.run(['stream', 'secured', 'c', '--json', '--binding', 'json-rpc']);
    expect(streamed.code, streamed.stderr).toBe(0);
    expect(idp.calls['token:client_credentials']).toBe(3);
    idp.revokeAll();
    const refreshed = await box.run(['agent', 'refresh', 'secured', '--json']);
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(idp.calls['token:client_credentials']).toBe(4);
    await expectNoLeak([again.stdout, again.stderr, streamed.stdout, streamed.stderr, refreshed.stdout, refreshed.stderr], idp.issued);
  });

  it('renews the token once when a gRPC agent answers UNAUTHENTICATED to it', async () => {
    const idp = await tokenServer({ clientId: 'missive-client', clientSecret: CLIENT_SECRET });
    const agent = await guarded((req) => idp.isValid(bearerOf(req.headers)), {}, { grpc: true });
    await box.run([
      'auth',
      'add',
      'cc',
      '--env',
      'CS',
      '--flow',
      'oauth2_client_credentials',
      '--token-url',
      `${idp.url}/token`,
      '--client-id',
      'missive-client',
    ]);
    expect((await box.run(['agent', 'add', 'secured', agent.baseUrl, '--auth-ref', 'cc', '--trust-origin', `http://${agent.grpcTarget}`])).code).toBe(0);
    expect((await box.run(['send', 'secured', 'a', '--binding', 'grpc', '--json'])).code).toBe(0);
    idp.revokeAll();
    const again = await box.run(['send', 'secured', 'b', '--binding', 'grpc', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json().data.selected_interface.binding).toBe('grpc');
    expect(idp.calls['token:client_credentials']).toBe(2);
    const calls = agent.requests.filter((r) => r.path === 'grpc');
    expect(calls.slice(-2).map((r) => r.accepted)).toEqual([false, true]);
    expect(bearerOf(calls.at(-1)!.headers)).toBe(idp.issued[1]);
    await expectNoLeak([again.stdout, again.stderr], idp.issued);
  });

  it('refuses a discovery document that sends the client secret to another origin (exit 77)', async () => {
    const elsewhere = await tokenServer({ clientId: 'missive-client', clientSecret: CLIENT_SECRET });
    const idp = await tokenServer({ clientId: 'missive-client', clientSecret: CLIENT_SECRET, discoveryTokenEndpoint: `${elsewhere.url}/token` });
    const agent = await guarded(() => true);
    await box.run(['auth', 'add', 'cc', '--env', 'CS', '--flow', 'oauth2_client_credentials', '--issuer', idp.url, '--client-id', 'missive-client']);
    await box.run(['agent', 'add', 'secured', agent.baseUrl, '--auth-ref', 'cc']);
    const res = await box.run(['send', 'secured', 'x', '--json']);
    expect(res.code).toBe(77);
    expect(JSON.parse(res.stderr).data).toMatchObject({ code: 'missive::auth::oidc_endpoint_off_issuer', help: expect.stringMatching(/token_url/) });
    expect(elsewhere.received).toEqual([]);
  });

  it('refuses a plain-http token endpoint off loopback before sending anything (exit 77)', async () => {
    const agent = await guarded(() => true);
    expect(
      (
        await box.run([
          'auth',
          'add',
          'far',
          '--env',
          'CS',
          '--flow',
          'oauth2_client_credentials',
          '--token-url',
          'http://auth.example.com/token',
          '--client-id',
          'c',
        ])
      ).code,
    ).toBe(0);
    expect((await box.run(['agent', 'add', 'far', agent.baseUrl, '--auth-ref', 'far'])).code).toBe(0);
    const res = await box.run(['send', 'far', 'x', '--json']);
    expect(res.code).toBe(77);
    expect(JSON.parse(res.stderr).data).toMatchObject({ category: 'auth', code: 'missive::auth::insecure_token_endpoint' });
    expect(JSON.parse(res.stderr).data.message).toMatch(/only over https/);
    expect(agent.requests).toEqual([]);
  });

  it('reports a refused client as an auth error naming the next step, without the secret', async () => {
    const idp = await tokenServer({ clientId: 'missive-client', clientSecret: 'another-secret' });
    const agent = await guarded(() => true);
    await box.run([
      'auth',
      'add',
      'cc',
      '--env',
      'CS',
      '--flow',
      'oauth2_client_credentials',
      '--token-url',
      `${idp.url}/token`,
      '--client-id',
      'missive-client',
    ]);
    await box.run(['agent', 'add', 'secured', agent.baseUrl, '--auth-ref', 'cc']);
    const res = await box.run(['send', 'secured', 'x']);
    expect(res.code).toBe(77);
    expect(res.stderr).toMatch(/invalid_client/);
    expect(res.stderr).toMatch(/missive auth set-secret cc/);
    expect(res.stderr).not.toContain(CLIENT_SECRET);
  });

  it('without a keyring, keeps the token in memory only and says so', async () => {
    box.dispose();
    const writes: string[] = [];
    box = sandbox(
      { CS: CLIENT_SECRET },
      {
        backend: 'keytar',
        available: async () => ({ ok: false, reason: 'no Secret Service answered' }),
        get: async () => null,
        set: async (service) => void writes.push(service),
        delete: async () => false,
      },
    );
    const { idp } = await setup();
    const login = await box.run(['auth', 'login', 'cc']);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toMatch(/in memory only: the keyring is unavailable/);
    expect((await box.run(['send', 'secured', 'works', '--json'])).code).toBe(0);
    expect(writes).toEqual([]);
    await expectNoLeak([login.stdout, login.stderr], [...idp.issued, CLIENT_SECRET]);
  });

  it('auth login fetches a token now; logout forgets it from memory and the keyring', async () => {
    const { idp } = await setup();
    const login = await box.run(['auth', 'login', 'secured', '--json']);
    expect(login.code, login.stderr).toBe(0);
    expect(login.json().data).toMatchObject({ auth_ref: 'cc', agent: 'secured', flow: 'oauth2_client_credentials', token_cached: true, keyring: true });
    expect(idp.calls['token:client_credentials']).toBe(1);
    const logout = await box.run(['auth', 'logout', 'cc', '--json']);
    expect(logout.json().data).toMatchObject({ name: 'cc', dropped: true, keyring: true });
    expect(await box.secrets.get('missive-oauth', 'default/cc')).toBeNull();
    expect((await box.run(['auth', 'status', 'cc', '--json'])).json().data.auth_refs[0].token_status).toMatchObject({ cached: false });
    expect((await box.run(['send', 'secured', 'again', '--json'])).code).toBe(0);
    expect(idp.calls['token:client_credentials']).toBe(2);
    await expectNoLeak([login.stdout, login.stderr, logout.stdout], [...idp.issued, CLIENT_SECRET]);
  });
});

describe('OAuth2 device code', () => {
  async function setup(options: Partial<Parameters<typeof startTokenServer>[0]> = {}) {
    const idp = await tokenServer({ clientId: 'cli-app', clientSecret: null, pendingPolls: 2, ...options });
    const agent = await guarded((req) => idp.isValid(bearerOf(req.headers)));
    const add = await box.run([
      'auth',
      'add',
      'dc',
      '--env',
      'DC_CLIENT_SECRET',
      '--flow',
      'oauth2_device_code',
      '--issuer',
      idp.url,
      '--client-id',
      'cli-app',
      '--scope',
      'a2a.read',
    ]);
    expect(add.code, add.stderr).toBe(0);
    expect((await box.run(['agent', 'add', 'dev', agent.baseUrl, '--auth-ref', 'dc'])).code).toBe(0);
    return { idp, agent };
  }

  it('prints the verification URL and code on stderr, polls until approved, then sends with the token', async () => {
    const { idp, agent } = await setup();
    const before = await box.run(['send', 'dev', 'too early', '--json']);
    expect(before.code).toBe(77);
    expect(JSON.parse(before.stderr).data.code).toBe('missive::auth::login_required');
    expect(JSON.parse(before.stderr).data.help).toMatch(/missive auth login dc/);
    const login = await box.run(['auth', 'login', 'dc', '--json']);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(`${idp.url}/activate`);
    expect(login.stderr).toContain('WDJB-MJHT');
    expect(idp.calls['token:device_code']).toBe(3);
    expect(idp.received.find((r) => r.path === '/device')!.body).toEqual({ scope: 'a2a.read', client_id: 'cli-app' });
    const sent = await box.run(['send', 'dev', 'now', '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(bearerOf(agent.requests.at(-1)!.headers)).toBe(idp.issued[0]);
    const status = await box.run(['auth', 'status', '--json']);
    expect(status.json().data.auth_refs).toEqual([
      expect.objectContaining({ name: 'dc', flow: 'oauth2_device_code', token_status: expect.objectContaining({ cached: true, fresh: true }) }),
    ]);
    expect((await box.run(['auth', 'logout', 'dc'])).code).toBe(0);
    expect((await box.run(['send', 'dev', 'after logout'])).code).toBe(77);
    await expectNoLeak([login.stdout, login.stderr, sent.stdout, status.stdout], idp.issued);
  });

  it('reports a denied login and an expired code as auth errors (exit 77)', async () => {
    const denied = await setup({ deviceOutcome: 'deny', pendingPolls: 0 });
    const res = await box.run(['auth', 'login', 'dc', '--json']);
    expect(res.code).toBe(77);
    expect(res.stderr).toContain('missive::auth::access_denied');
    expect(denied.idp.issued).toEqual([]);
    await denied.idp.close();
    box.dispose();
    box = sandbox();
    await setup({ deviceOutcome: 'expire', pendingPolls: 1 });
    const expired = await box.run(['auth', 'login', 'dc', '--json']);
    expect(expired.code).toBe(77);
    expect(expired.stderr).toContain('missive::auth::device_code_expired');
  });
});

describe('auth login for an agent without an auth ref', () => {
  it('names the schemes its card declares and the auth add that fits', async () => {
    const agent = await guarded(() => true, {
      securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } } },
      securityRequirements: [{ schemes: { key: { list: [] } } }],
    });
    expect((await box.run(['agent', 'add', 'keyed', agent.baseUrl])).code).toBe(0);
    const res = await box.run(['auth', 'login', 'keyed', '--json']);
    expect(res.code).toBe(77);
    const data = JSON.parse(res.stderr).data;
    expect(data.message).toMatch(/declares key: API key in header X-API-Key/);
    expect(data.help).toMatch(/--flow api_key --in header\|query\|cookie --key-name <name>/);
  });

  it('says the card declares no scheme and how to add an auth ref', async () => {
    const agent = await guarded(() => true);
    expect((await box.run(['agent', 'add', 'open', agent.baseUrl])).code).toBe(0);
    const res = await box.run(['auth', 'login', 'open', '--json']);
    expect(res.code).toBe(77);
    const data = JSON.parse(res.stderr).data;
    expect(data.code).toBe('missive::auth::no_auth_ref');
    expect(data.message).toMatch(/has no auth ref/);
    expect(data.help).toMatch(/missive auth add/);
  });
});
