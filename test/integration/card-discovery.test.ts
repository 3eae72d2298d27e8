/** Agent Card discovery edge cases against a raw HTTP peer: ETag/304, compat cards, malformed, version errors, 404, slow. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';
import { sandbox, type Sandbox } from '../support/cli.js';

let server: RawServer;
let box: Sandbox;

beforeAll(async () => {
  server = await startRawServer();
});
afterAll(() => server.close());
beforeEach(() => {
  box = sandbox();
  server.requests.length = 0;
});
afterEach(() => box.dispose());

const serveCard = (prefix: string, body: unknown, headers: Record<string, string> = {}) =>
  server.route(`${prefix}/.well-known/agent-card.json`, (_req, res) => json(res, 200, body, headers));

describe('agent card discovery', () => {
  it('caches the card with its validators and revalidates with If-None-Match / If-Modified-Since', async () => {
    const lastModified = 'Wed, 02 Dec 2026 10:00:00 GMT';
    let served = 0;
    server.route('/etag/.well-known/agent-card.json', (req, res) => {
      served++;
      if (req.headers['if-none-match'] === '"v1"') return void res.writeHead(304).end();
      json(res, 200, minimalCard(server.url), { etag: '"v1"', 'last-modified': lastModified });
    });
    expect((await box.run(['agent', 'add', 'etag', `${server.url}/etag`])).code).toBe(0);
    const first = await box.run(['agent', 'inspect', 'etag', '--json']);
    expect(first.code).toBe(0);
    expect(first.json().data.cache).toMatchObject({ status: 'fetched', etag: '"v1"', last_modified: lastModified });

    const cached = await box.run(['agent', 'inspect', 'etag', '--json']);
    expect(cached.json().data.cache.status).toBe('cached');
    expect(served).toBe(1);

    const refreshed = await box.run(['agent', 'refresh', 'etag', '--json']);
    expect(refreshed.code).toBe(0);
    expect(refreshed.json().data.status).toBe('not_modified');
    const conditional = server.requests.at(-1)!;
    expect(conditional.headers['if-none-match']).toBe('"v1"');
    expect(conditional.headers['if-modified-since']).toBe(lastModified);
    expect(refreshed.json().data.validated_at >= first.json().data.cache.validated_at).toBe(true);
    const again = await box.run(['agent', 'inspect', 'etag', '--json']);
    expect(again.json().data.card.name).toBe('Raw Agent');
  });

  it('sends A2A-Version 1.0 on the card request, and --protocol-version / extensions / service params when given', async () => {
    serveCard('/sp', minimalCard(server.url));
    await box.run(['agent', 'add', 'sp', `${server.url}/sp`]);
    await box.run(['agent', 'inspect', 'sp', '--a2a-extension', 'urn:x:one', '--a2a-extension', 'urn:x:two', '--service-param', 'X-Tenant=blue', '--json']);
    const req = server.requests.at(-1)!;
    expect(req.headers['a2a-version']).toBe('1.0');
    expect(req.headers['a2a-extensions']).toBe('urn:x:one,urn:x:two');
    expect(req.headers['x-tenant']).toBe('blue');
  });

  it('refuses to redefine A2A-Version through --service-param (exit 64)', async () => {
    const res = await box.run(['doctor', '--service-param', 'A2A-Version=9.9', '--json']);
    expect(res.code).toBe(64);
    expect(JSON.parse(res.stderr).data.code).toBe('missive::validation::reserved_service_param');
  });

  it('normalises snake_case cards and falls back to the base URL without supportedInterfaces', async () => {
    serveCard('/snake', {
      name: 'Snake',
      supported_interfaces: [{ url: `${server.url}/rpc`, protocol_binding: 'JSONRPC', protocol_version: '1.0' }],
      capabilities: { streaming: true, push_notifications: true },
      default_input_modes: ['text/plain'],
      default_output_modes: ['application/json'],
      skills: [],
    });
    serveCard('/legacy', { name: 'Legacy', capabilities: {}, skills: [] });
    await box.run(['agent', 'add', 'snake', `${server.url}/snake`]);
    await box.run(['agent', 'add', 'legacy', `${server.url}/legacy`]);
    const snake = (await box.run(['agent', 'inspect', 'snake', '--json'])).json().data;
    expect(snake.selected_interface).toEqual({
      binding: 'json-rpc',
      protocol_binding: 'JSONRPC',
      url: `${server.url}/rpc`,
      tenant: null,
      protocol_version: '1.0',
      dialect: '1.0',
      source: 'agent_card',
      card_index: 0,
      declared_url: null,
      reason: "the card's first interface missive can call",
      skipped: [],
    });
    const caps = (await box.run(['agent', 'capabilities', 'snake', '--json'])).json().data;
    expect(caps.labels).toEqual(expect.arrayContaining(['streaming', 'push-notifications', 'input:text/plain', 'output:application/json']));
    const legacy = (await box.run(['agent', 'inspect', 'legacy', '--json'])).json().data;
    expect(legacy.card.interfaces_missing).toBe(true);
    expect(legacy.selected_interface).toMatchObject({
      binding: 'http+json',
      url: `${server.url}/legacy`,
      protocol_version: 'unknown',
      source: 'base_url_fallback',
    });
    const viaRegistry = await box.run(['agent', 'inspect', 'legacy', '--binding', 'json-rpc', '--json']);
    expect(viaRegistry.code).toBe(69);
  });

  it('uses a registry interface URL when the card lists none', async () => {
    serveCard('/legacy2', { name: 'Legacy2' });
    await box.run(['agent', 'add', 'legacy2', `${server.url}/legacy2`, '--interface', `json-rpc=${server.url}/jr`, '--binding-preference', 'json-rpc']);
    const data = (await box.run(['agent', 'inspect', 'legacy2', '--json'])).json().data;
    expect(data.selected_interface).toMatchObject({ binding: 'json-rpc', url: `${server.url}/jr`, source: 'registry_interface' });
  });

  it('shows a card with no mutual binding (exit 0) and says what is missing; calls to it fail with exit 69', async () => {
    serveCard('/kafka', { name: 'K', supportedInterfaces: [{ url: 'kafka://127.0.0.1:1/topic', protocolBinding: 'KAFKA', protocolVersion: '1.0' }] });
    await box.run(['agent', 'add', 'kafka', `${server.url}/kafka`]);
    const res = await box.run(['agent', 'inspect', 'kafka']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('K');
    expect(res.stdout).toMatch(/missive cannot talk to this agent: it offers KAFKA; missive speaks HTTP\+JSON, JSON-RPC, gRPC/);
    const data = (await box.run(['agent', 'inspect', 'kafka', '--json'])).json().data;
    expect(data.selected_interface).toBeNull();
    expect(data.negotiation).toMatchObject({ ok: false, dialect: null, offered_bindings: ['KAFKA'], error: { code: 'missive::transport::no_mutual_binding' } });
    const send = await box.run(['send', 'kafka', 'hi', '--json']);
    expect(send.code).toBe(69);
    expect(JSON.parse(send.stderr).data.message).toMatch(/no mutual A2A binding: the agent offers KAFKA/);
    expect((await box.run(['agent', 'inspect', 'kafka', '--binding', 'grpc'])).code).toBe(69);
  });

  it('maps malformed JSON and non-card payloads to protocol errors (exit 76)', async () => {
    server.route('/bad/.well-known/agent-card.json', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"name": '));
    serveCard('/notcard', { hello: 'world' });
    await box.run(['agent', 'add', 'bad', `${server.url}/bad`]);
    await box.run(['agent', 'add', 'notcard', `${server.url}/notcard`]);
    const bad = await box.run(['agent', 'inspect', 'bad', '--json']);
    expect(bad.code).toBe(76);
    expect(JSON.parse(bad.stderr).data).toMatchObject({ category: 'protocol', code: 'missive::protocol::invalid_card_json', exit_code: 76 });
    const notCard = await box.run(['agent', 'inspect', 'notcard']);
    expect(notCard.code).toBe(76);
    expect(notCard.stderr).toMatch(/name:/);
  });

  it('maps VERSION_NOT_SUPPORTED bodies to exit 76, in HTTP and JSON-RPC shapes', async () => {
    server.route('/vns/.well-known/agent-card.json', (_req, res) =>
      json(res, 400, {
        error: {
          code: 400,
          status: 'FAILED_PRECONDITION',
          message: 'A2A version 9.9 is not supported',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'VERSION_NOT_SUPPORTED', domain: 'a2a-protocol.org' }],
        },
      }),
    );
    server.route('/vns2/.well-known/agent-card.json', (_req, res) => json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32009, message: 'version' } }));
    await box.run(['agent', 'add', 'vns', `${server.url}/vns`]);
    await box.run(['agent', 'add', 'vns2', `${server.url}/vns2`]);
    const res = await box.run(['agent', 'inspect', 'vns', '--protocol-version', '9.9', '--json']);
    expect(res.code).toBe(76);
    expect(JSON.parse(res.stderr).data.code).toBe('missive::protocol::version_not_supported');
    expect((await box.run(['agent', 'inspect', 'vns2'])).code).toBe(76);
  });

  it('says an agent without a card at either well-known path seems to speak another version (76); refused is 69', async () => {
    await box.run(['agent', 'add', 'missing', `${server.url}/missing`]);
    const res = await box.run(['agent', 'inspect', 'missing']);
    expect(res.code).toBe(76);
    expect(res.stderr).toContain(
      `no Agent Card at ${server.url}/missing/.well-known/agent-card.json nor ${server.url}/missing/.well-known/agent.json (HTTP 404)`,
    );
    expect(res.stderr).toMatch(/seems to speak another A2A version/);
    expect(server.requests.filter((r) => r.path.startsWith('/missing/')).map((r) => r.path)).toEqual([
      '/missing/.well-known/agent-card.json',
      '/missing/.well-known/agent.json',
    ]);
    await box.run(['agent', 'add', 'down', 'http://127.0.0.1:9']);
    const down = await box.run(['agent', 'inspect', 'down', '--json']);
    expect(down.code).toBe(69);
    expect(JSON.parse(down.stderr).data.code).toBe('missive::transport::connection_refused');
  });

  it('times out slow agents within --timeout (exit 69) and keeps the registry intact', async () => {
    server.route('/slow/.well-known/agent-card.json', (_req, res) => void setTimeout(() => json(res, 200, minimalCard(server.url)), 1500));
    await box.run(['agent', 'add', 'slow', `${server.url}/slow`]);
    const res = await box.run(['agent', 'inspect', 'slow', '--timeout', '200ms', '--json']);
    expect(res.code).toBe(69);
    expect(JSON.parse(res.stderr).data.code).toBe('missive::transport::timeout');
    const show = (await box.run(['agent', 'show', 'slow', '--json'])).json().data.agent;
    expect(show.card.cached).toBe(false);
  });
});
