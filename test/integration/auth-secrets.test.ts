/** Auth material reaches the agent and nothing else: not stdout, stderr, the database file or the journal. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';
import { stateBytes, sandbox, type Sandbox } from '../support/cli.js';

const TOKEN = 'tok-4f9d2c1b8e7a6d5c';
const HEADER_SECRET = 'hdr-91ab73cd55ef02aa';
const REF_SECRET = 'ref-0c1d2e3f4a5b6c7d';

let server: RawServer;
let box: Sandbox;

beforeAll(async () => {
  server = await startRawServer();
  server.route('/ok/.well-known/agent-card.json', (_req, res) => json(res, 200, minimalCard(server.url)));
  // A hostile peer that echoes the credential back in its error body.
  server.route('/echoes/.well-known/agent-card.json', (req, res) =>
    json(res, 500, { error: { message: `bad auth ${req.headers.authorization} / ${req.headers['x-api-key']}` } }),
  );
});
afterAll(() => server.close());
beforeEach(() => {
  box = sandbox({ MY_TOKEN: TOKEN, REF_TOKEN: REF_SECRET });
  server.requests.length = 0;
});
afterEach(() => box.dispose());

describe('secrets', () => {
  it('sends --bearer-token-env, --header and auth-ref values to the agent only', async () => {
    await box.run(['auth', 'add', 'ref', '--env', 'REF_TOKEN', '--header-name', 'X-Ref-Token', '--scheme', 'none']);
    await box.run(['agent', 'add', 'ok', `${server.url}/ok`, '--auth-ref', 'ref']);
    const res = await box.run(['agent', 'inspect', 'ok', '--bearer-token-env', 'MY_TOKEN', '--header', `X-Api-Key: ${HEADER_SECRET}`, '--json', '-v']);
    expect(res.code).toBe(0);
    const req = server.requests.at(-1)!;
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers['x-api-key']).toBe(HEADER_SECRET);
    expect(req.headers['x-ref-token']).toBe(REF_SECRET);
    const everything = res.stdout + res.stderr + stateBytes(box.home);
    for (const secret of [TOKEN, HEADER_SECRET, REF_SECRET]) expect(everything).not.toContain(secret);
    const list = await box.run(['auth', 'list', '--json']);
    expect(list.json().data.auth_refs[0]).toMatchObject({ name: 'ref', kind: 'env', env: 'REF_TOKEN', present: true });
    expect(list.stdout).not.toContain(REF_SECRET);
  });

  it('redacts credentials that a peer echoes back in an error', async () => {
    await box.run(['agent', 'add', 'echoes', `${server.url}/echoes`]);
    for (const mode of [[], ['--json'], ['--ndjson']]) {
      const res = await box.run(['agent', 'inspect', 'echoes', '--bearer-token-env', 'MY_TOKEN', '--header', `X-Api-Key: ${HEADER_SECRET}`, ...mode]);
      expect(res.code).toBe(69);
      expect(res.stderr).toMatch(/HTTP 500/);
      expect(res.stderr + res.stdout).not.toContain(TOKEN);
      expect(res.stderr + res.stdout).not.toContain(HEADER_SECRET);
    }
    expect(stateBytes(box.home)).not.toContain(TOKEN);
  });

  it('redacts a registry auth ref (env or keyring) that a peer echoes back, in every output mode', async () => {
    await box.run(['auth', 'add', 'envref', '--env', 'REF_TOKEN', '--header-name', 'X-Api-Key', '--scheme', 'none']);
    await box.run(['auth', 'add', 'kr', '--keyring-service', 'missive-test', '--keyring-account', 'echo-kr']);
    expect((await box.run(['auth', 'set-secret', 'kr'], { stdin: `${HEADER_SECRET}\n` })).code).toBe(0);
    await box.run(['agent', 'add', 'echoes-env', `${server.url}/echoes`, '--auth-ref', 'envref']);
    await box.run(['agent', 'add', 'echoes-kr', `${server.url}/echoes`, '--auth-ref', 'kr']);
    for (const [alias, secret] of [
      ['echoes-env', REF_SECRET],
      ['echoes-kr', HEADER_SECRET],
    ] as const) {
      for (const mode of [[], ['--json'], ['--ndjson']]) {
        const before = server.requests.length;
        const res = await box.run(['agent', 'inspect', alias, '--refresh', ...mode]);
        expect(res.code).toBe(69);
        // The peer did get the credential and did echo it: only the output scrubs it.
        expect(JSON.stringify(server.requests.slice(before))).toContain(secret);
        expect(res.stderr).toMatch(/HTTP 500: bad auth/);
        expect(res.stderr + res.stdout).not.toContain(secret);
      }
    }
    expect(stateBytes(box.home)).not.toContain(REF_SECRET);
    expect(stateBytes(box.home)).not.toContain(HEADER_SECRET);
    await box.run(['auth', 'delete-secret', 'kr']);
  });

  it('fails with exit 77 before any request when auth material is missing', async () => {
    await box.run(['auth', 'add', 'gone', '--env', 'NOT_SET_ANYWHERE']);
    await box.run(['agent', 'add', 'ok', `${server.url}/ok`, '--auth-ref', 'gone']);
    const before = server.requests.length;
    const res = await box.run(['agent', 'inspect', 'ok', '--json']);
    expect(res.code).toBe(77);
    expect(JSON.parse(res.stderr).data).toMatchObject({ category: 'auth', code: 'missive::auth::env_missing' });
    expect((await box.run(['agent', 'inspect', 'ok', '--bearer-token-env', 'ALSO_UNSET'])).code).toBe(77);
    expect((await box.run(['agent', 'inspect', 'ok', '--header', 'no-colon-here'])).code).toBe(77);
    expect(server.requests.length).toBe(before);
  });

  it('stores keyring secrets through the secret store and resolves them for requests', async () => {
    await box.run(['auth', 'add', 'kr', '--keyring-service', 'missive-test', '--keyring-account', 'kr']);
    const set = await box.run(['auth', 'set-secret', 'kr', '--json'], { stdin: `${REF_SECRET}\n` });
    expect(set.code).toBe(0);
    expect(set.stdout).not.toContain(REF_SECRET);
    await box.run(['agent', 'add', 'ok', `${server.url}/ok`, '--auth-ref', 'kr']);
    expect((await box.run(['agent', 'inspect', 'ok'])).code).toBe(0);
    expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${REF_SECRET}`);
    expect(stateBytes(box.home)).not.toContain(REF_SECRET);
    expect((await box.run(['auth', 'delete-secret', 'kr'])).code).toBe(0);
    const missing = await box.run(['agent', 'inspect', 'ok', '--refresh']);
    expect(missing.code).toBe(77);
    expect(missing.stderr).toMatch(/missive auth set-secret kr/);
  });
});
