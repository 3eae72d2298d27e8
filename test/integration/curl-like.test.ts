/**
 * Curl-like use: `missive send|stream|conformance <url> …` and `agent inspect <url>` without registering. The journal
 * records the URL as the agent; credentials in the URL are used for that call only and never recorded.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';
import { readDb, sandbox, stateBytes, type Sandbox } from '../support/cli.js';
import { startAgents } from '../support/agents.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let server: RawServer;
let box: Sandbox;

const PASSWORD = 'url-pass-8c1f';
const QUERY_KEY = 'url-key-5e2a';

beforeAll(async () => {
  [fleet, server] = await Promise.all([startAgents({ echo: { behaviour: 'echo' }, tasks: { behaviour: 'task' } }), startRawServer()]);
  // An agent that wants HTTP Basic or an api_key query parameter on every request, card included.
  const guarded = (path: string, answer: (res: Parameters<Parameters<RawServer['route']>[1]>[1], body: string) => void) =>
    server.route(path, (req, res, body) => {
      const basic = req.headers.authorization === `Basic ${Buffer.from(`me:${PASSWORD}`).toString('base64')}`;
      const key = new URL(req.url ?? '/', server.url).searchParams.get('api_key') === QUERY_KEY;
      if (!basic && !key) return json(res, 401, { error: { code: 401, message: 'who are you' } }, { 'www-authenticate': 'Basic realm="raw"' });
      answer(res, body);
    });
  guarded('/guarded/.well-known/agent-card.json', (res) =>
    json(res, 200, {
      ...minimalCard(server.url),
      supportedInterfaces: [{ url: `${server.url}/guarded/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    }),
  );
  guarded('/guarded/rpc', (res, body) => {
    const call = JSON.parse(body);
    json(res, 200, { jsonrpc: '2.0', id: call.id, result: { message: { messageId: 'm-1', role: 'ROLE_AGENT', parts: [{ text: 'let in' }] } } });
  });
});
afterAll(() => Promise.all([fleet.close(), server.close()]));
beforeEach(() => {
  box = sandbox();
  server.requests.length = 0;
});
afterEach(() => box.dispose());

const journalAgents = () =>
  readDb(box, (db) =>
    (db.prepare(`SELECT DISTINCT agent_alias FROM events WHERE agent_alias IS NOT NULL`).all() as Array<{ agent_alias: string }>).map((r) => r.agent_alias),
  );

describe('a URL in place of an agent alias', () => {
  it('send, stream, agent inspect and conformance work without agent add; the journal names the URL', async () => {
    const url = fleet.agents.tasks!.baseUrl;
    const sent = await box.run(['send', url, 'hello', '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.json().data.agent).toBe(url);

    const streamed = await box.run(['stream', url, 'again', '--json']);
    expect(streamed.code, streamed.stderr).toBe(0);

    const inspect = await box.run(['agent', 'inspect', url, '--json']);
    expect(inspect.code, inspect.stderr).toBe(0);
    expect(inspect.json().data.agent).toMatchObject({ alias: url, base_url: url, source: 'discovered' });

    const conformance = await box.run(['conformance', url, '--json']);
    expect(conformance.code, conformance.stderr).toBe(0);
    expect(conformance.json().data.alias).toBe(url);

    readDb(box, (db) => {
      const tasks = db.prepare(`SELECT agent_alias FROM tasks`).all() as Array<{ agent_alias: string }>;
      expect(tasks.length).toBe(2);
      expect(new Set(tasks.map((t) => t.agent_alias))).toEqual(new Set([url]));
    });
    expect(journalAgents()).toEqual([url]);
    const history = await box.run(['task', 'list', '--agent', url, '--json']);
    expect(history.json().data.tasks).toHaveLength(2);
  });

  it('accepts a URL with a trailing slash or a path as its own agent, and a plain echo answer', async () => {
    const url = `${fleet.agents.echo!.baseUrl}/`;
    const sent = await box.run(['send', url, 'ping']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('echo: ping');
  });

  it('uses user:password from the URL as HTTP Basic for that call only, and records the URL without it', async () => {
    const withUser = `${server.url.replace('http://', `http://me:${PASSWORD}@`)}/guarded`;
    const sent = await box.run(['send', withUser, 'knock']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('let in');
    expect(journalAgents()).toEqual([`${server.url}/guarded`]);
    expect(sent.stdout + sent.stderr).not.toContain(PASSWORD);
    expect(stateBytes(box.home)).not.toContain(PASSWORD);
    expect((await box.run(['agent', 'list'])).stdout).not.toContain(PASSWORD);
  });

  it('sends the query parameters of the URL on every request and redacts their values in the journal', async () => {
    const withKey = `${server.url}/guarded?api_key=${QUERY_KEY}`;
    const sent = await box.run(['send', withKey, 'knock']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(journalAgents()).toEqual([`${server.url}/guarded?api_key=[REDACTED]`]);
    expect(stateBytes(box.home)).not.toContain(QUERY_KEY);
    expect(sent.stdout + sent.stderr).not.toContain(QUERY_KEY);
  });

  it('names the fix when the URL is not an agent', async () => {
    const res = await box.run(['send', `${server.url}/nothing-here`, 'hi']);
    expect(res.code).toBe(76);
    expect(res.stderr).toContain('/nothing-here/.well-known/agent-card.json');
  });
});
