/**
 * One URL, two versions: agents that serve A2A 0.3 and 1.0 side by side (chosen by the `A2A-Version` header) and
 * negotiate their card the same way. missive asks for the highest version it speaks, falls back to 0.3 when the agent
 * refuses 1.0, picks the highest version both sides speak, and says so in `agent inspect`.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, startRawServer, type RawServer } from '../support/raw-server.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { startDualVersionPeer, type DualVersionPeer } from '../support/dual-version-peer.js';

let dual: DualVersionPeer;
let server: RawServer;
let box: Sandbox;

beforeAll(async () => {
  [dual, server] = await Promise.all([startDualVersionPeer(), startRawServer()]);
});
afterAll(() => Promise.all([dual.close(), server.close()]));
beforeEach(() => {
  box = sandbox();
  dual.requests.length = 0;
  server.requests.length = 0;
});
afterEach(() => box.dispose());

const legacyCard = (url: string) => ({
  name: 'strict v0.3 agent',
  url,
  preferredTransport: 'JSONRPC',
  protocolVersion: '0.3.0',
  version: '1',
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});

describe('an SDK agent serving A2A 1.0 and 0.3 on one URL', () => {
  it('speaks 1.0, the highest version both sides speak, and agent inspect says so', async () => {
    expect((await box.run(['agent', 'add', 'dual', dual.baseUrl])).code).toBe(0);
    const inspect = await box.run(['agent', 'inspect', 'dual', '--json']);
    expect(inspect.code).toBe(0);
    const data = inspect.json().data;
    expect(data.selected_interface).toMatchObject({ binding: 'json-rpc', url: dual.rpcUrl, dialect: '1.0', protocol_version: '1.0' });
    expect(data.negotiation.version).toMatchObject({ spoken: '1.0', agent_offers: ['1.0', '0.3'], missive_speaks: ['1.0', '0.3'], forced: false });
    // The card was asked for with the highest version missive speaks.
    expect(dual.requests.find((r) => r.path.includes('agent-card.json'))?.version).toBe('1.0');

    const human = await box.run(['agent', 'inspect', 'dual']);
    expect(human.stdout).toMatch(/A2A version\s+1\.0: the highest both speak \(agent offers 1\.0, 0\.3; missive speaks 1\.0, 0\.3\)/);

    const sent = await box.run(['send', 'dual', 'hello', '--json']);
    expect(sent.code).toBe(0);
    expect(JSON.stringify(sent.json().data.response)).toContain('dual: hello');
    expect(dual.requests.filter((r) => r.method).map((r) => [r.method, r.version])).toEqual([['SendMessage', '1.0']]);
  });

  it('speaks 0.3 on the same URL with --protocol-version 0.3, card and call alike', async () => {
    expect((await box.run(['agent', 'add', 'dual', dual.baseUrl])).code).toBe(0);
    const inspect = await box.run(['agent', 'inspect', 'dual', '--protocol-version', '0.3', '--json']);
    expect(inspect.code).toBe(0);
    // The SDK answers A2A-Version 0.3 with its v0.3 card (which also embeds the v1.0 interface list).
    expect(dual.requests.find((r) => r.path.includes('agent-card.json'))?.version).toBe('0.3');
    expect(inspect.json().data.card.declared_protocol_version).toBe('0.3');
    expect(inspect.json().data.selected_interface).toMatchObject({ url: dual.rpcUrl, dialect: '0.3' });
    expect(inspect.json().data.negotiation.version).toMatchObject({ spoken: '0.3', forced: true });
    const sent = await box.run(['send', 'dual', 'old wire', '--protocol-version', '0.3', '--json']);
    expect(sent.code).toBe(0);
    expect(JSON.stringify(sent.json().data.response)).toContain('dual: old wire');
    expect(dual.requests.filter((r) => r.method).map((r) => [r.method, r.version])).toEqual([['message/send', '0.3']]);
  });
});

describe('a raw agent that refuses A2A-Version 1.0, card included', () => {
  it('asks for the card again with 0.3 and speaks 0.3 to it', async () => {
    const refuse = (res: Parameters<Parameters<RawServer['route']>[1]>[1]) =>
      json(res, 400, {
        error: {
          code: 400,
          status: 'FAILED_PRECONDITION',
          message: 'A2A version 1.0 is not supported',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'VERSION_NOT_SUPPORTED', domain: 'a2a-protocol.org' }],
        },
      });
    server.route('/strict/.well-known/agent-card.json', (req, res) => {
      if (req.headers['a2a-version'] && req.headers['a2a-version'] !== '0.3') return refuse(res);
      json(res, 200, legacyCard(`${server.url}/strict/rpc`));
    });
    server.route('/strict/rpc', (req, res, body) => {
      const call = JSON.parse(body);
      if (req.headers['a2a-version'] !== '0.3')
        return json(res, 200, { jsonrpc: '2.0', id: call.id, error: { code: -32009, message: 'version not supported' } });
      json(res, 200, {
        jsonrpc: '2.0',
        id: call.id,
        result: { kind: 'message', messageId: 'm-1', role: 'agent', parts: [{ kind: 'text', text: `strict: ${call.params.message.parts[0].text}` }] },
      });
    });
    expect((await box.run(['agent', 'add', 'strict', `${server.url}/strict`])).code).toBe(0);
    const inspect = await box.run(['agent', 'inspect', 'strict', '--json']);
    expect(inspect.code).toBe(0);
    expect(inspect.json().data.negotiation.version).toMatchObject({ spoken: '0.3', agent_offers: ['0.3'], card_requested_with: '0.3' });
    const cardAsks = server.requests.filter((r) => r.path.endsWith('agent-card.json')).map((r) => r.headers['a2a-version']);
    expect(cardAsks).toEqual(['1.0', '0.3']);

    const sent = await box.run(['send', 'strict', 'hi', '--json']);
    expect(sent.code).toBe(0);
    expect(JSON.stringify(sent.json().data.response)).toContain('strict: hi');
    expect(server.requests.filter((r) => r.path === '/strict/rpc').map((r) => r.headers['a2a-version'])).toEqual(['0.3']);
  });
});

describe('a card offering 1.0 on one binding and 0.3 on another', () => {
  it('picks the interface with the highest version, whatever the binding order', async () => {
    server.route('/mixed/.well-known/agent-card.json', (_req, res) =>
      json(res, 200, {
        name: 'mixed versions',
        supportedInterfaces: [
          { url: `${server.url}/mixed/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
          { url: `${server.url}/mixed/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        ],
        capabilities: {},
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [],
      }),
    );
    expect((await box.run(['agent', 'add', 'mixed', `${server.url}/mixed`])).code).toBe(0);
    const inspect = await box.run(['agent', 'inspect', 'mixed', '--json']);
    expect(inspect.json().data.selected_interface).toMatchObject({ binding: 'json-rpc', dialect: '1.0' });
    expect(inspect.json().data.negotiation.version).toMatchObject({ spoken: '1.0', agent_offers: ['1.0', '0.3'] });
  });
});
