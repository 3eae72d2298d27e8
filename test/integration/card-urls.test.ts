/**
 * Cards that are not at `/.well-known/agent-card.json`: frameworks that serve one card per agent at their own path.
 * `agent add NAME <card-url>` and `--card-url` register from that card; a base URL holding `/.well-known/` is warned
 * about; a card file (a path or a file:// URL) can be inspected without any network.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';
import { sandbox, type Sandbox } from '../support/cli.js';

let server: RawServer;
let other: RawServer;
let box: Sandbox;

beforeAll(async () => {
  [server, other] = await Promise.all([startRawServer(), startRawServer()]);
  // A framework serving one card per agent under its own path, the agent's JSON-RPC endpoint beside it.
  server.route('/agents/writer/agent-card.json', (req, res) => {
    if (req.headers['if-none-match'] === '"w1"') return void res.writeHead(304).end();
    json(
      res,
      200,
      {
        ...minimalCard(server.url),
        name: 'Writer',
        supportedInterfaces: [{ url: `${server.url}/agents/writer/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      },
      { etag: '"w1"' },
    );
  });
  server.route('/agents/writer/rpc', (_req, res, body) => {
    const call = JSON.parse(body);
    json(res, 200, {
      jsonrpc: '2.0',
      id: call.id,
      result: { message: { messageId: 'm-1', role: 'ROLE_AGENT', parts: [{ text: `writer: ${call.params.message.parts[0].text}` }] } },
    });
  });
  // A v0.2-style card at its own `agent.json` path.
  server.route('/legacy/agent.json', (_req, res) =>
    json(res, 200, {
      name: 'Old',
      url: `${server.url}/legacy/rpc`,
      version: '1',
      capabilities: {},
      defaultInputModes: ['text'],
      defaultOutputModes: ['text'],
      skills: [],
    }),
  );
  // A card served by a registry on another origin than the agent's interfaces.
  other.route('/registry/cards/far.json', (_req, res) => json(res, 200, { ...minimalCard(server.url), name: 'Far' }));
});
afterAll(() => Promise.all([server.close(), other.close()]));
beforeEach(() => {
  box = sandbox();
  server.requests.length = 0;
  other.requests.length = 0;
});
afterEach(() => box.dispose());

describe('agent add with a card URL', () => {
  it('registers from the card: base URL from its interfaces, the card URL remembered, no well-known request', async () => {
    const add = await box.run(['agent', 'add', 'writer', `${server.url}/agents/writer/agent-card.json`, '--json']);
    expect(add.code).toBe(0);
    expect(add.json().data.agent).toMatchObject({ base_url: `${server.url}/agents/writer/rpc`, card: { cached: true, name: 'Writer' } });

    const sent = await box.run(['send', 'writer', 'draft', '--json']);
    expect(sent.code).toBe(0);
    expect(JSON.stringify(sent.json().data.response)).toContain('writer: draft');

    const refreshed = await box.run(['agent', 'refresh', 'writer', '--json']);
    expect(refreshed.code).toBe(0);
    expect(refreshed.json().data).toMatchObject({ status: 'not_modified', url: `${server.url}/agents/writer/agent-card.json` });
    expect(server.requests.some((r) => r.path.includes('/.well-known/'))).toBe(false);
  });

  it('reads a v0.2 card at its own agent.json path', async () => {
    const add = await box.run(['agent', 'add', 'old', `${server.url}/legacy/agent.json`, '--json']);
    expect(add.code).toBe(0);
    expect(add.json().data.agent.base_url).toBe(`${server.url}/legacy/rpc`);
    const inspect = await box.run(['agent', 'inspect', 'old', '--json']);
    expect(inspect.json().data).toMatchObject({ card: { name: 'Old', format: '0.2' }, cache: { url: `${server.url}/legacy/agent.json` } });
  });

  it('takes --card-url beside a base URL, and alone', async () => {
    const both = await box.run(['agent', 'add', 'w2', `${server.url}/agents/writer`, '--card-url', `${server.url}/agents/writer/agent-card.json`, '--json']);
    expect(both.code).toBe(0);
    expect(both.json().data.agent.base_url).toBe(`${server.url}/agents/writer`);
    const inspect = await box.run(['agent', 'inspect', 'w2', '--json']);
    expect(inspect.json().data).toMatchObject({ card: { name: 'Writer' }, cache: { url: `${server.url}/agents/writer/agent-card.json` } });

    const alone = await box.run(['agent', 'add', 'w3', '--card-url', `${server.url}/agents/writer/agent-card.json`, '--json']);
    expect(alone.code).toBe(0);
    expect(alone.json().data.agent.base_url).toBe(`${server.url}/agents/writer/rpc`);
  });

  it('does not send the agent credentials to a card on another origin', async () => {
    expect((await box.run(['auth', 'add', 'tok', '--env', 'FAR_TOKEN'])).code).toBe(0);
    const add = await box.run(['agent', 'add', 'far', `${server.url}/a2a`, '--card-url', `${other.url}/registry/cards/far.json`, '--auth-ref', 'tok'], {
      env: { FAR_TOKEN: 'far-secret-1' },
    });
    expect(add.code).toBe(0);
    const card = other.requests.find((r) => r.path === '/registry/cards/far.json')!;
    expect(card.headers.authorization).toBeUndefined();
  });

  it('refuses a card URL that has no card, registering nothing', async () => {
    const add = await box.run(['agent', 'add', 'none', `${server.url}/agents/missing/agent-card.json`]);
    expect(add.code).toBe(76);
    expect(add.stderr).toContain('agents/missing/agent-card.json');
    expect((await box.run(['agent', 'show', 'none'])).code).toBe(64);
  });

  // Issue 35: any URL under /.well-known/ is a card URL (before, it was a base URL with a warning).
  it('takes a URL under /.well-known/ for the card URL, registering nothing when it has no card', async () => {
    const add = await box.run(['agent', 'add', 'wk', `${server.url}/.well-known/`]);
    expect(add.code).toBe(76);
    expect(add.stderr).toContain('--card-url');
    expect((await box.run(['agent', 'show', 'wk'])).code).toBe(64);
  });
});

describe('agent inspect of a card file', () => {
  it('reads a path and a file:// URL, without any request', async () => {
    const dir = join(box.home, 'cards');
    mkdirSync(dir);
    const file = join(dir, 'writer.json');
    writeFileSync(file, JSON.stringify({ ...minimalCard(server.url), name: 'From File' }));
    for (const target of [file, pathToFileURL(file).href, './cards/writer.json']) {
      const inspect = await box.run(['agent', 'inspect', target, '--json']);
      expect(inspect.code, inspect.stderr).toBe(0);
      expect(inspect.json().data).toMatchObject({
        card: { name: 'From File' },
        cache: { url: pathToFileURL(file).href },
        selected_interface: { binding: 'http+json' },
      });
    }
    const human = await box.run(['agent', 'inspect', file]);
    expect(human.stdout).toContain('From File');
    expect(server.requests).toEqual([]);
  });

  it('names the file when it is not a card', async () => {
    const file = join(box.home, 'bad.json');
    writeFileSync(file, '{"not": "a card"');
    const inspect = await box.run(['agent', 'inspect', file]);
    expect(inspect.code).toBe(76);
    expect(inspect.stderr).toContain('bad.json');
  });
});
