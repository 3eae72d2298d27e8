/**
 * Credentials stay on their origin. Server A (the registered base URL) serves a card whose interface lives on server B
 * (a real SDK agent on another port, so another origin). B must never see a token unless the user trusts B; redirects
 * are never followed; push tokens are pinned too.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { json, startRawServer, type RawServer } from '../support/raw-server.js';
import { startEmbeddedAgent, type EmbeddedAgent } from '../../electron/core/demo/embedded-agent.js';
import { startV03Peer, type LegacyPeer } from '../support/legacy-peers.js';

const TOKEN = 'pinned-token-0123456789abcdef';
const API_KEY = 'pinned-api-key-0123456789';
const PUSH_TOKEN = 'pinned-push-token-0123456789';
let a: RawServer;
let b: EmbeddedAgent;
let legacy: LegacyPeer;
let box: Sandbox;

/** Everything B (or any server) received, as text: no token may appear in it. */
const seenBy = (requests: unknown[]) => JSON.stringify(requests);

beforeAll(async () => {
  a = await startRawServer();
  b = await startEmbeddedAgent({ name: 'b', behaviour: 'slow', delayMs: 300, pushNotifications: true });
  legacy = await startV03Peer();
  const cardOfB = b.card as Record<string, unknown>;
  // A publishes B's card: its interfaces point at B's origin.
  a.route('/.well-known/agent-card.json', (_req, res) => json(res, 200, cardOfB));
  // C publishes a card whose interface is on A itself, and A answers it with a redirect to B.
  a.route('/c/.well-known/agent-card.json', (_req, res) =>
    json(res, 200, { ...cardOfB, supportedInterfaces: [{ url: `${a.url}/c/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }] }),
  );
  a.route('/c/rest/message:send', (_req, res) => void res.writeHead(307, { location: `${b.restUrl}/message:send` }).end());
  // D: a v0.3 card on A whose JSON-RPC URL on A redirects to the v0.3 peer.
  a.route('/d/.well-known/agent-card.json', (_req, res) => json(res, 200, { ...legacy.card, url: `${a.url}/d/rpc`, additionalInterfaces: [] }));
  a.route('/d/rpc', (_req, res) => void res.writeHead(307, { location: legacy.jsonRpcUrl }).end());
});
afterAll(async () => {
  await Promise.all([a.close(), b.close(), legacy.close()]);
});
beforeEach(() => {
  box = sandbox({ PIN_TOKEN: TOKEN, PIN_PUSH: PUSH_TOKEN });
  b.requests.length = 0;
  a.requests.length = 0;
  legacy.requests.length = 0;
});
afterEach(() => box.dispose());

describe('credentials pinned to the registered origin', () => {
  it('refuses to send an auth ref, --bearer-token-env or --header to a card interface on another origin (exit 77)', async () => {
    await box.run(['auth', 'add', 'pin', '--env', 'PIN_TOKEN']);
    await box.run(['agent', 'add', 'split', a.url, '--auth-ref', 'pin']);
    const viaRef = await box.run(['send', 'split', 'hi', '--json']);
    expect(viaRef.code).toBe(77);
    const err = JSON.parse(viaRef.stderr).data;
    expect(err.code).toBe('missive::auth::cross_origin_credentials');
    expect(err.message).toContain(`points its interface at ${new URL(b.baseUrl).origin}`);
    expect(err.message).toContain(`are pinned to ${new URL(a.url).origin}`);
    expect(err.help).toContain('--allow-cross-origin-auth');
    expect(err.help).toContain(`--trust-origin ${new URL(b.baseUrl).origin}`);

    await box.run(['agent', 'add', 'split2', a.url]);
    expect((await box.run(['send', 'split2', 'hi', '--bearer-token-env', 'PIN_TOKEN'])).code).toBe(77);
    expect((await box.run(['task', 'get', 'any-task', '--agent', 'split2', '--remote', '--header', `X-Api-Key:${API_KEY}`])).code).toBe(77);
    expect((await box.run(['stream', 'split2', 'hi', '--header', `X-Api-Key:${API_KEY}`])).code).toBe(77);

    expect(b.requests).toEqual([]);
    // A, the registered origin, did get the card request with the credential: that is where it belongs.
    expect(a.requests.some((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('calls the other origin without credentials with --allow-cross-origin-auth, and with them once trusted', async () => {
    await box.run(['agent', 'add', 'split', a.url]);
    const allowed = await box.run([
      'send',
      'split',
      'hi',
      '--bearer-token-env',
      'PIN_TOKEN',
      '--header',
      `X-Api-Key:${API_KEY}`,
      '--allow-cross-origin-auth',
      '--json',
    ]);
    expect(allowed.code).toBe(0);
    expect(allowed.json().data.task.state).toBe('completed');
    expect(b.requests.length).toBeGreaterThan(0);
    expect(seenBy(b.requests)).not.toContain(TOKEN);
    expect(seenBy(b.requests)).not.toContain(API_KEY);

    b.requests.length = 0;
    await box.run(['agent', 'add', 'trusted', a.url, '--trust-origin', new URL(b.baseUrl).origin]);
    expect((await box.run(['agent', 'show', 'trusted', '--json'])).json().data.agent.trusted_origins).toEqual([new URL(b.baseUrl).origin]);
    expect((await box.run(['send', 'trusted', 'hi', '--bearer-token-env', 'PIN_TOKEN'])).code).toBe(0);
    expect(b.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('takes trusted_origins and allow_cross_origin_auth from the config', async () => {
    const config = join(box.home, 'missive.toml');
    writeFileSync(
      config,
      `[agents.cfg-allow]\nbase_url = "${a.url}"\nallow_cross_origin_auth = true\n\n[agents.cfg-trust]\nbase_url = "${a.url}"\ntrusted_origins = ["${new URL(b.baseUrl).origin}"]\n`,
    );
    const env = { MISSIVE_CONFIG: config };
    expect((await box.run(['send', 'cfg-allow', 'hi', '--bearer-token-env', 'PIN_TOKEN'], { env })).code).toBe(0);
    expect(seenBy(b.requests)).not.toContain(TOKEN);
    expect((await box.run(['send', 'cfg-trust', 'hi', '--bearer-token-env', 'PIN_TOKEN'], { env })).code).toBe(0);
    expect(b.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    writeFileSync(config, `[agents.bad]\nbase_url = "${a.url}"\ntrusted_origins = ["${b.baseUrl}/a2a/rest"]\n`);
    const bad = await box.run(['agent', 'list'], { env });
    expect(bad.code).toBe(78);
    expect(bad.stderr).toMatch(/trusted_origins.*must be an origin only/);
  });

  it('never hands a push token to another origin, not even with --allow-cross-origin-auth', async () => {
    await box.run(['agent', 'add', 'split', a.url]);
    const created = await box.run([
      'push',
      'create',
      'split',
      'task-1',
      '--url',
      'http://127.0.0.1:9/cb',
      '--token-env',
      'PIN_PUSH',
      '--allow-cross-origin-auth',
      '--json',
    ]);
    expect(created.code).toBe(77);
    expect(JSON.parse(created.stderr).data.message).toContain('the push token of --token-env PIN_PUSH');
    const inline = await box.run(['send', 'split', 'hi', '--push-url', 'http://127.0.0.1:9/cb', '--push-token-env', 'PIN_PUSH', '--allow-cross-origin-auth']);
    expect(inline.code).toBe(77);
    expect(b.requests).toEqual([]);
    expect(seenBy(a.requests)).not.toContain(PUSH_TOKEN);
  });

  it('shows the pinning decision in agent inspect without failing (exit 0)', async () => {
    await box.run(['agent', 'add', 'split', a.url]);
    const res = await box.run(['agent', 'inspect', 'split', '--bearer-token-env', 'PIN_TOKEN', '--json']);
    expect(res.code).toBe(0);
    expect(res.json().data.origin_pinning).toEqual({
      configured: ['--bearer-token-env'],
      pinned_origins: [new URL(a.url).origin],
      interface_origin: new URL(b.baseUrl).origin,
      decision: 'refuse',
    });
    const human = await box.run(['agent', 'inspect', 'split', '--bearer-token-env', 'PIN_TOKEN']);
    expect(human.stdout).toMatch(/credentials\s+--bearer-token-env: refused: the interface is on another origin/);
  });

  it('does not follow redirects: the token never reaches the origin a redirect names (1.0 and 0.3 wires)', async () => {
    await box.run(['agent', 'add', 'redirecting', `${a.url}/c`]);
    const v1 = await box.run(['send', 'redirecting', 'hi', '--bearer-token-env', 'PIN_TOKEN', '--json']);
    expect(v1.code).toBe(69);
    expect(JSON.parse(v1.stderr).data.message).toMatch(/answered HTTP 307/);
    expect(b.requests).toEqual([]);

    await box.run(['agent', 'add', 'redirecting03', `${a.url}/d`]);
    const v03 = await box.run(['send', 'redirecting03', 'echo hi', '--bearer-token-env', 'PIN_TOKEN', '--json']);
    expect(v03.code).toBe(69);
    expect(JSON.parse(v03.stderr).data).toMatchObject({ code: 'missive::transport::redirect_not_followed' });
    expect(JSON.parse(v03.stderr).data.message).toContain(`a redirect to ${legacy.jsonRpcUrl}`);
    expect(legacy.requests).toEqual([]);
  });

  it('pins gRPC interfaces too: the v0.3 agent on its gRPC port never sees the token', async () => {
    await box.run(['agent', 'add', 'g', legacy.baseUrl, '--binding-preference', 'grpc']);
    const res = await box.run(['send', 'g', 'echo hi', '--bearer-token-env', 'PIN_TOKEN', '--json']);
    expect(res.code).toBe(77);
    expect(JSON.parse(res.stderr).data.message).toContain(`points its interface at http://${legacy.grpcTarget}`);
    // JSON-RPC is on the registered origin: the same token goes there.
    await box.run(['agent', 'add', 'j', legacy.baseUrl, '--binding-preference', 'json-rpc']);
    expect((await box.run(['send', 'j', 'echo hi', '--bearer-token-env', 'PIN_TOKEN'])).code).toBe(0);
    expect(legacy.requests.find((r) => r.path === '/rpc')!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });
});
