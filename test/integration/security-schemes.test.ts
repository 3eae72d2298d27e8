/**
 * The card's security schemes in `agent inspect` (JSON and human, a v1.0 card and a v0.3 card), and a 401/403 from an
 * agent as an auth error (exit 77) on every wire: HTTP+JSON, JSON-RPC, a stream, v0.3 JSON-RPC and the card fetch,
 * with the scheme the agent asked for (WWW-Authenticate) and the card's schemes in the help, and no secret in any output.
 */
import { createServer as createNetServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stateBytes, sandbox, type Sandbox } from '../support/cli.js';
import { startSecuredAgent, type SecuredAgent } from '../support/secured-agent.js';
import { startV03Peer, type LegacyPeer } from '../support/legacy-peers.js';

const TOKEN = 'secured-agent-token-0123456789';
const WRONG = 'wrong-token-abcdefghijkl';

const V1_SCHEMES = {
  bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT', description: 'a JWT from our IdP' } },
  basic: { httpAuthSecurityScheme: { scheme: 'Basic' } },
  headerKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
  queryKey: { apiKeySecurityScheme: { location: 'query', name: 'api_key' } },
  cookieKey: { apiKeySecurityScheme: { location: 'cookie', name: 'session' } },
  cc: {
    oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://auth.example/token', scopes: { 'a2a.read': 'read', 'a2a.write': 'write' } } } },
  },
  dc: {
    oauth2SecurityScheme: {
      flows: { deviceCode: { deviceAuthorizationUrl: 'https://auth.example/device', tokenUrl: 'https://auth.example/token', scopes: {} } },
    },
  },
  oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://auth.example/.well-known/openid-configuration' } },
  mtls: { mtlsSecurityScheme: {} },
};
const V1_REQUIREMENTS = [{ schemes: { bearer: { list: [] } } }, { schemes: { cc: { list: ['a2a.read'] }, headerKey: { list: [] } } }];

let box: Sandbox;
let open: SecuredAgent;
let guarded: SecuredAgent;
let forbidden: SecuredAgent;
let v03: LegacyPeer;
let cardGuard: Server;
let cardGuardUrl: string;

beforeAll(async () => {
  box = sandbox({ GOOD_TOKEN: TOKEN, WRONG_TOKEN: WRONG });
  open = await startSecuredAgent({ securitySchemes: V1_SCHEMES, securityRequirements: V1_REQUIREMENTS });
  guarded = await startSecuredAgent({
    token: TOKEN,
    securitySchemes: { bearer: V1_SCHEMES.bearer },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
  });
  forbidden = await startSecuredAgent({ forbid: true, securitySchemes: { bearer: V1_SCHEMES.bearer } });
  v03 = await startV03Peer({
    bearer: TOKEN,
    challenge: 'Bearer realm="legacy", error="invalid_token"',
    cardExtra: {
      securitySchemes: {
        token: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        key: { type: 'apiKey', in: 'header', name: 'X-Legacy-Key' },
        oauth: {
          type: 'oauth2',
          flows: {
            clientCredentials: { tokenUrl: 'https://legacy.example/token', scopes: { jobs: 'run jobs' } },
            authorizationCode: { authorizationUrl: 'https://legacy.example/authorize', tokenUrl: 'https://legacy.example/token', scopes: {} },
          },
        },
        oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://legacy.example/.well-known/openid-configuration' },
        tls: { type: 'mutualTLS' },
      },
      security: [{ token: [] }, { oauth: ['jobs'] }],
    },
  });
  // A server that guards its card too: 401 with a Basic challenge carrying control characters and a long realm.
  // Written raw: node:http refuses odd bytes in a header it sends, an agent's server need not (undici itself refuses
  // control characters; a U+2028 arrives as bytes that read as C1 controls).
  cardGuard = createNetServer((socket) => {
    socket.once('data', () => {
      const body = '<html><head><title>401 Authorization Required</title></head><body><h1>nope</h1></body></html>';
      socket.end(
        Buffer.from(
          `HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm="cards\u2028${'x'.repeat(500)}"\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
          'utf8',
        ),
      );
    });
  });
  await new Promise<void>((resolve) => cardGuard.listen(0, '127.0.0.1', resolve));
  cardGuardUrl = `http://127.0.0.1:${(cardGuard.address() as AddressInfo).port}`;
  for (const [alias, url, extra] of [
    ['open', open.baseUrl, []],
    ['guarded', guarded.baseUrl, []],
    ['forbidden', forbidden.baseUrl, []],
    ['legacy', v03.baseUrl, ['--binding-preference', 'json-rpc']],
    ['cardguard', cardGuardUrl, []],
  ] as Array<[string, string, string[]]>) {
    const res = await box.run(['agent', 'add', alias, url, ...extra]);
    expect(res.code, res.stderr).toBe(0);
  }
  expect((await box.run(['auth', 'add', 'good', '--env', 'GOOD_TOKEN'])).code).toBe(0);
  expect((await box.run(['auth', 'add', 'wrong', '--env', 'WRONG_TOKEN'])).code).toBe(0);
});

afterAll(async () => {
  await Promise.all([open.close(), guarded.close(), forbidden.close(), v03.close(), new Promise<void>((resolve) => cardGuard.close(() => resolve()))]);
  box.dispose();
});

/** The JSON error envelope a failed command writes to stderr. */
const errorOf = (stderr: string) => JSON.parse(stderr).data as { code: string; message: string; help?: string; exit_code: number };

describe('agent inspect shows the security the card declares', () => {
  it('lists every scheme kind of a v1.0 card with its details, the requirements, and that nothing is sent yet', async () => {
    const res = await box.run(['agent', 'inspect', 'open', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const security = res.json().data.security;
    const byName = Object.fromEntries(security.schemes.map((s: { name: string }) => [s.name, s]));
    expect(Object.keys(byName).sort()).toEqual(['basic', 'bearer', 'cc', 'cookieKey', 'dc', 'headerKey', 'mtls', 'oidc', 'queryKey']);
    expect(byName.bearer).toMatchObject({ type: 'http', http_scheme: 'bearer', bearer_format: 'JWT', description: 'a JWT from our IdP' });
    expect(byName.basic).toMatchObject({ type: 'http', http_scheme: 'basic' });
    expect(byName.headerKey).toMatchObject({ type: 'api_key', in: 'header', param_name: 'X-API-Key' });
    expect(byName.queryKey).toMatchObject({ type: 'api_key', in: 'query', param_name: 'api_key' });
    expect(byName.cookieKey).toMatchObject({ type: 'api_key', in: 'cookie', param_name: 'session' });
    expect(byName.cc.flows).toEqual([
      {
        flow: 'client_credentials',
        token_url: 'https://auth.example/token',
        authorization_url: null,
        device_authorization_url: null,
        refresh_url: null,
        scopes: ['a2a.read', 'a2a.write'],
      },
    ]);
    expect(byName.dc.flows).toMatchObject([
      { flow: 'device_code', device_authorization_url: 'https://auth.example/device', token_url: 'https://auth.example/token' },
    ]);
    expect(byName.oidc).toMatchObject({ type: 'openid_connect', openid_connect_url: 'https://auth.example/.well-known/openid-configuration' });
    expect(byName.mtls).toMatchObject({ type: 'mtls' });
    expect(security.requirements).toEqual([
      { schemes: [{ name: 'bearer', scopes: [] }] },
      {
        schemes: [
          { name: 'cc', scopes: ['a2a.read'] },
          { name: 'headerKey', scopes: [] },
        ],
      },
    ]);
    expect(security.satisfied_by).toBeNull();
  });

  it('names what missive would send and which schemes it fits, never the secret', async () => {
    const res = await box.run(['agent', 'inspect', 'open', '--json', '--bearer-token-env', 'GOOD_TOKEN']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json().data.security.satisfied_by).toEqual({
      auth_ref: null,
      sends: [{ source: '--bearer-token-env', kind: 'bearer', place: 'header', name: 'Authorization' }],
      schemes: ['bearer', 'cc', 'dc', 'oidc'],
      requirement_met: true,
    });
    expect(res.stdout + res.stderr).not.toContain(TOKEN);
    const header = await box.run(['agent', 'inspect', 'open', '--json', '--header', `X-API-Key: ${TOKEN}`]);
    expect(header.json().data.security.satisfied_by).toMatchObject({
      sends: [{ source: '--header X-API-Key', kind: 'header', place: 'header', name: 'X-API-Key' }],
      schemes: ['headerKey'],
      requirement_met: false,
    });
    expect(header.stdout + header.stderr).not.toContain(TOKEN);
  });

  it('reads the kind of credential from the auth ref flow: basic, an API key in a query parameter', async () => {
    const local = sandbox({ SOME_SECRET: TOKEN });
    try {
      for (const args of [
        ['auth', 'add', 'pw', '--env', 'SOME_SECRET', '--flow', 'basic', '--username', 'ops'],
        ['auth', 'add', 'qkey', '--env', 'SOME_SECRET', '--flow', 'api_key', '--in', 'query', '--key-name', 'api_key'],
      ]) {
        const added = await local.run(args);
        expect(added.code, added.stderr).toBe(0);
      }
      const expected: Record<string, object> = {
        pw: { sends: [{ source: 'auth ref "pw"', kind: 'basic', place: 'header', name: 'Authorization' }], schemes: ['basic'], requirement_met: false },
        qkey: { sends: [{ source: 'auth ref "qkey"', kind: 'api_key', place: 'query', name: 'api_key' }], schemes: ['queryKey'], requirement_met: false },
      };
      for (const [ref, satisfied] of Object.entries(expected)) {
        expect((await local.run(['agent', 'add', `open-${ref}`, open.baseUrl, '--auth-ref', ref])).code).toBe(0);
        const res = await local.run(['agent', 'inspect', `open-${ref}`, '--json']);
        expect(res.code, res.stderr).toBe(0);
        expect(res.json().data.security.satisfied_by).toEqual({ auth_ref: ref, ...satisfied });
        expect(res.stdout + res.stderr).not.toContain(TOKEN);
      }
    } finally {
      local.dispose();
    }
  });

  it('prints a readable security block', async () => {
    const res = await box.run(['agent', 'inspect', 'open']);
    expect(res.code, res.stderr).toBe(0);
    const text = res.stdout;
    expect(text).toMatch(/^Security$/m);
    expect(text).toMatch(/bearer\s+http\s+HTTP Bearer, format JWT — a JWT from our IdP/);
    expect(text).toMatch(/headerKey\s+api_key\s+API key in header X-API-Key/);
    expect(text).toMatch(/queryKey\s+api_key\s+API key in query api_key/);
    expect(text).toMatch(/cc\s+oauth2\s+OAuth2 client credentials \(token URL https:\/\/auth\.example\/token\); scopes a2a\.read, a2a\.write/);
    expect(text).toMatch(/oidc\s+openid_connect\s+OpenID Connect \(https:\/\/auth\.example\/\.well-known\/openid-configuration\)/);
    expect(text).toMatch(/mtls\s+mtls\s+mutual TLS/);
    expect(text).toMatch(/requires\s+bearer {2}or {2}cc \(scopes a2a\.read\) \+ headerKey/);
    expect(text).toMatch(/missive sends\s+nothing: add an auth ref/);
  });

  it('reads a v0.3 card (type/in/security) with every OAuth2 flow it lists', async () => {
    const res = await box.run(['agent', 'inspect', 'legacy', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const { schemes, requirements } = res.json().data.security;
    const byName = Object.fromEntries(schemes.map((s: { name: string }) => [s.name, s]));
    expect(byName.token).toMatchObject({ type: 'http', http_scheme: 'bearer', bearer_format: 'JWT' });
    expect(byName.key).toMatchObject({ type: 'api_key', in: 'header', param_name: 'X-Legacy-Key' });
    expect(byName.oauth.flows.map((f: { flow: string }) => f.flow)).toEqual(['client_credentials', 'authorization_code']);
    expect(byName.oauth.flows[1]).toMatchObject({ authorization_url: 'https://legacy.example/authorize' });
    expect(byName.oidc).toMatchObject({ type: 'openid_connect', openid_connect_url: 'https://legacy.example/.well-known/openid-configuration' });
    expect(byName.tls).toMatchObject({ type: 'mtls' });
    expect(requirements).toEqual([{ schemes: [{ name: 'token', scopes: [] }] }, { schemes: [{ name: 'oauth', scopes: ['jobs'] }] }]);
    const human = await box.run(['agent', 'inspect', 'legacy']);
    expect(human.stdout).toMatch(/oauth\s+oauth2\s+OAuth2 client credentials \(token URL https:\/\/legacy\.example\/token\), authorization code/);
  });

  it('says so when the card declares no scheme', async () => {
    const plain = await startSecuredAgent();
    try {
      expect((await box.run(['agent', 'add', 'plain', plain.baseUrl])).code).toBe(0);
      const res = await box.run(['agent', 'inspect', 'plain', '--json']);
      expect(res.json().data.security).toEqual({ schemes: [], requirements: [], satisfied_by: null });
      const human = await box.run(['agent', 'inspect', 'plain']);
      expect(human.stdout).toMatch(/^Security\nthe card declares no security schemes\nrequires\s+nothing\nmissive sends\s+nothing$/m);
    } finally {
      await plain.close();
    }
  });
});

describe('a 401 from an agent is an auth error with the scheme it asked for', () => {
  const cases: Array<[string, string[]]> = [
    ['HTTP+JSON send', ['send', 'guarded', 'hi', '--binding', 'http+json']],
    ['JSON-RPC send', ['send', 'guarded', 'hi', '--binding', 'json-rpc']],
    ['HTTP+JSON stream', ['stream', 'guarded', 'hi', '--binding', 'http+json']],
    ['JSON-RPC stream', ['stream', 'guarded', 'hi', '--binding', 'json-rpc']],
  ];
  for (const [name, args] of cases) {
    it(`${name}: exit 77, auth::unauthorized, the URL, the challenge and the card's scheme`, async () => {
      const res = await box.run([...args, '--json']);
      expect(res.code).toBe(77);
      const error = errorOf(res.stderr);
      expect(error.code).toBe('missive::auth::unauthorized');
      expect(error.exit_code).toBe(77);
      expect(error.message).toContain(`${guarded.baseUrl}/a2a/`);
      expect(error.message).toContain('HTTP 401 Unauthorized');
      expect(error.message).toContain('WWW-Authenticate: "Bearer" (realm "a2a")');
      expect(error.help).toContain('The agent asks for a "Bearer" token (realm "a2a")');
      expect(error.help).toContain('Its card declares bearer: HTTP Bearer, format JWT');
      expect(error.help).toContain('No credentials were sent: add an auth ref with missive auth add <name> --env <VAR>');
      expect(error.help).toContain('missive agent set guarded --auth-ref <name>');
    });
  }

  it('follows its own help: an auth ref given to the agent with agent set --auth-ref makes the call work', async () => {
    expect((await box.run(['auth', 'add', 'guardtoken', '--env', 'GOOD_TOKEN'])).code).toBe(0);
    const set = await box.run(['agent', 'set', 'guarded', '--auth-ref', 'guardtoken', '--json']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.json().data.agent.auth_ref).toBe('guardtoken');
    const ok = await box.run(['send', 'guarded', 'hi', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect((await box.run(['agent', 'set', 'guarded', '--auth-ref', 'nosuchref'])).code).toBe(78);
    expect((await box.run(['agent', 'set', 'guarded', '--clear-auth-ref', '--json'])).json().data.agent.auth_ref).toBeNull();
    expect((await box.run(['send', 'guarded', 'hi'])).code).toBe(77);
    expect((await box.run(['agent', 'set', 'guarded'])).code).toBe(64);
  });

  it('the same call with the token works; a wrong token is "not accepted", and never printed', async () => {
    const ok = await box.run(['send', 'guarded', 'hi', '--bearer-token-env', 'GOOD_TOKEN', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    const wrong = await box.run(['send', 'guarded', 'hi', '--bearer-token-env', 'WRONG_TOKEN', '--json']);
    expect(wrong.code).toBe(77);
    expect(errorOf(wrong.stderr).help).toContain('The credentials sent (--bearer-token-env) were not accepted');
    const human = await box.run(['send', 'guarded', 'hi', '--bearer-token-env', 'WRONG_TOKEN']);
    expect(human.code).toBe(77);
    expect(human.stderr).toContain('missive: auth error: SendMessage at');
    expect(human.stderr).toContain('help: The agent asks for a "Bearer" token');
    for (const text of [wrong.stdout, wrong.stderr, human.stdout, human.stderr]) expect(text).not.toContain(WRONG);
    expect(stateBytes(box.home)).not.toContain(WRONG);
  });

  it("v0.3 JSON-RPC: exit 77 with the challenge and the card's schemes; the token then works", async () => {
    const res = await box.run(['send', 'legacy', 'echo hi', '--json']);
    expect(res.code).toBe(77);
    const error = errorOf(res.stderr);
    expect(error.code).toBe('missive::auth::unauthorized');
    expect(error.message).toContain(`${v03.baseUrl}/rpc`);
    expect(error.help).toContain('The agent asks for a "Bearer" token (realm "legacy", error "invalid_token")');
    expect(error.help).toMatch(/Its card declares token: HTTP Bearer, format JWT; key: API key in header X-Legacy-Key; oauth: OAuth2/);
    const ok = await box.run(['send', 'legacy', 'echo hi', '--bearer-token-env', 'GOOD_TOKEN', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('v0.3 stream: exit 77 too', async () => {
    const res = await box.run(['stream', 'legacy', 'echo hi', '--json']);
    expect(res.code).toBe(77);
    expect(errorOf(res.stderr).code).toBe('missive::auth::unauthorized');
  });

  it('an auth ref whose secret is refused: the help names the ref and the command to replace it', async () => {
    const local = sandbox({ WRONG_TOKEN: WRONG });
    try {
      expect((await local.run(['auth', 'add', 'wrong', '--env', 'WRONG_TOKEN'])).code).toBe(0);
      expect((await local.run(['agent', 'add', 'guarded', guarded.baseUrl, '--auth-ref', 'wrong'])).code).toBe(0);
      const res = await local.run(['send', 'guarded', 'hi', '--json']);
      expect(res.code).toBe(77);
      expect(errorOf(res.stderr).help).toContain(
        'The credentials sent (auth ref "wrong") were not accepted: replace the secret (missive auth set-secret wrong',
      );
      expect(res.stdout + res.stderr).not.toContain(WRONG);
    } finally {
      local.dispose();
    }
  });

  it('the card fetch: exit 77; the challenge is one escaped, capped line and the HTML page is not shown', async () => {
    const res = await box.run(['agent', 'inspect', 'cardguard', '--json']);
    expect(res.code).toBe(77);
    const error = errorOf(res.stderr);
    expect(error.code).toBe('missive::auth::unauthorized');
    expect(error.message).toContain(
      `Agent Card request at ${cardGuardUrl}/.well-known/agent-card.json answered HTTP 401 Unauthorized: 401 Authorization Required`,
    );
    expect(error.help).toContain('The agent asks for a user name and password ("Basic") (realm "cards');
    expect(error.help).toContain('missive auth add <name> --username <user> --env <VAR> --flow basic, then');
    // eslint-disable-next-line no-control-regex -- the test looks for raw control characters in what a user sees
    expect(error.message + error.help).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028]/);
    expect(error.message).not.toContain('x'.repeat(100));
    expect(error.message).not.toMatch(/<h1>|<html/);
  });
});

describe('a 403 from an agent is auth::forbidden', () => {
  for (const binding of ['http+json', 'json-rpc'] as const) {
    it(`${binding}: exit 77, the URL and what to check`, async () => {
      const res = await box.run(['send', 'forbidden', 'hi', '--binding', binding, '--json']);
      expect(res.code).toBe(77);
      const error = errorOf(res.stderr);
      expect(error.code).toBe('missive::auth::forbidden');
      expect(error.message).toContain(`${forbidden.baseUrl}/a2a/`);
      expect(error.message).toContain('HTTP 403 Forbidden: this caller may not use this agent');
      expect(error.help).toContain('Its card declares bearer: HTTP Bearer, format JWT');
      expect(error.help).toContain('The agent refused this operation and no credentials were sent');
    });
  }

  it('a stream: exit 77, auth::forbidden', async () => {
    const res = await box.run(['stream', 'forbidden', 'hi', '--json']);
    expect(res.code).toBe(77);
    expect(errorOf(res.stderr).code).toBe('missive::auth::forbidden');
  });

  it('v0.3 JSON-RPC answering 403: exit 77, auth::forbidden', async () => {
    const peer = await startV03Peer({ bearer: TOKEN, refusal: 403 });
    const local = sandbox();
    try {
      expect((await local.run(['agent', 'add', 'legacy403', peer.baseUrl, '--binding-preference', 'json-rpc'])).code).toBe(0);
      const res = await local.run(['send', 'legacy403', 'echo hi', '--json']);
      expect(res.code).toBe(77);
      expect(errorOf(res.stderr)).toMatchObject({ code: 'missive::auth::forbidden', message: expect.stringContaining(`${peer.baseUrl}/rpc`) });
    } finally {
      local.dispose();
      await peer.close();
    }
  });
});

/** The profile's SQLite files (with WAL and SHM) as text, for grepping secrets. */
