/**
 * `missive mcp serve --http` as an MCP client and a program that launches it see it: the built CLI as a child process
 * in a sandbox where real SDK agents on 127.0.0.1 are registered, its URL and token read from its --json output, the
 * official SDK client over Streamable HTTP. The guard: a missing or wrong token is 401 (a JSON-RPC error body), a
 * foreign Origin or Host (DNS rebinding) 403, a body over 4 MiB 413; sessions end on DELETE; only loopback unless
 * --allow-remote; --token-file keeps one token across launches in a file only the user can read.
 */
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { wireProgress } from '../support/mcp.js';
import { connectHttp, INITIALIZE, POST_HEADERS, rawRequest, serveHttp, type HttpServer } from '../support/mcp-http.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
let served: HttpServer;
let token: string;

const texts = (result: CallToolResult): string => result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');

beforeAll(async () => {
  fleet = await startAgents({ echo: { behaviour: 'echo', streaming: false }, chunks: { behaviour: 'chunks', chunks: 3, streaming: true } });
  box = sandbox();
  await register(box, fleet.agents);
  served = await serveHttp(box);
  token = served.data.bearer!;
}, 60_000);

afterAll(async () => {
  await served?.stop();
  await fleet?.close();
  box?.dispose();
});

describe('mcp serve --http', () => {
  it('prints a loopback /mcp URL and its token in --json output for the program that launched it', () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(served.data).toMatchObject({ bearer: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), token_file: null });
  });

  it('serves the SDK client with a bearer token: tools/list, list_agents, send_message with progress', async () => {
    const { client, wire } = await connectHttp(served.url, token);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(['list_agents', 'send_message', 'get_task', 'round']));
      const listed = (await client.callTool({ name: 'list_agents', arguments: {} })) as CallToolResult;
      expect(listed.isError).toBeFalsy();
      expect((listed.structuredContent as { agents: Array<{ alias: string }> }).agents.map((a) => a.alias).sort()).toEqual(['chunks', 'echo']);
      const sent = (await client.callTool({ name: 'send_message', arguments: { agent: 'echo', text: 'over http' } })) as CallToolResult;
      expect(texts(sent)).toBe('echo: over http');
      // A streaming agent's chunks arrive as progress notifications on the POST's SSE stream, before the result.
      const streamed = (await client.callTool({ name: 'send_message', arguments: { agent: 'chunks', text: 'tale' } }, CallToolResultSchema, {
        onprogress: () => undefined,
      })) as CallToolResult;
      expect(texts(streamed)).toContain('chunk 3 of 3 for: tale');
      const progress = wireProgress(wire, 'send_message');
      expect(progress.beforeResponse).toBe(true);
      expect(progress.messages.length).toBeGreaterThanOrEqual(3);
      expect(progress.messages[0]).toContain('chunk 1 of 3 for: tale');
      expect(progress.messages.at(-1)).toContain('chunk 3 of 3 for: tale');
    } finally {
      await client.close();
    }
  });

  it('takes the token as ?token= on the URL, for clients that can only be given a URL', async () => {
    const { client } = await connectHttp(`${served.url}?token=${encodeURIComponent(token)}`);
    try {
      expect((await client.callTool({ name: 'list_agents', arguments: {} })).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('answers a missing token with 401 and a JSON-RPC error saying how to send it', async () => {
    const answer = await rawRequest(served.url, { headers: POST_HEADERS, body: INITIALIZE });
    expect(answer.status).toBe(401);
    expect(answer.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { message: expect.stringContaining('Authorization: Bearer') } });
    await expect(connectHttp(served.url)).rejects.toThrow(/missing MCP token/);
  });

  it('answers a wrong token with 401, as a header or on the URL', async () => {
    for (const request of [
      { url: served.url, headers: { ...POST_HEADERS, authorization: `Bearer ${token}x` } },
      { url: `${served.url}?token=${token.slice(1)}`, headers: POST_HEADERS },
      // A wrong header is not rescued by a right ?token=.
      { url: `${served.url}?token=${token}`, headers: { ...POST_HEADERS, authorization: 'Bearer wrong' } },
    ]) {
      const answer = await rawRequest(request.url, { headers: request.headers, body: INITIALIZE });
      expect(answer.status).toBe(401);
      expect(answer.json().error.message).toMatch(/wrong MCP token/);
      expect(answer.body).not.toContain(token);
    }
  });

  it('refuses a foreign Origin with 403, even with the token', async () => {
    const answer = await rawRequest(served.url, {
      headers: { ...POST_HEADERS, authorization: `Bearer ${token}`, origin: 'https://evil.example' },
      body: INITIALIZE,
    });
    expect(answer.status).toBe(403);
    expect(answer.json()).toMatchObject({ jsonrpc: '2.0', error: { message: expect.stringContaining('https://evil.example') } });
  });

  it('refuses a foreign Host (a DNS-rebinding page) with 403, even with the token', async () => {
    const port = new URL(served.url).port;
    const answer = await rawRequest(served.url, {
      headers: { ...POST_HEADERS, authorization: `Bearer ${token}`, host: `evil.example:${port}`, origin: `http://evil.example:${port}` },
      body: INITIALIZE,
    });
    expect(answer.status).toBe(403);
    expect(answer.json().error.message).toContain('does not answer to the host name');
    // Its own names pass: localhost as well as the address.
    const local = await rawRequest(served.url, { headers: { ...POST_HEADERS, authorization: `Bearer ${token}`, host: `localhost:${port}` }, body: INITIALIZE });
    expect(local.status).toBe(200);
  });

  it('refuses a body over 4 MiB with 413 before reading it', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { pad: 'x'.repeat(5 * 1024 * 1024) } });
    const answer = await rawRequest(served.url, { headers: { ...POST_HEADERS, authorization: `Bearer ${token}` }, body });
    expect(answer.status).toBe(413);
  });

  it('ends a session on DELETE: its id is unknown afterwards (404), and a GET opens the SSE stream until then', async () => {
    const { client, transport } = await connectHttp(served.url, token);
    const session = transport.sessionId!;
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    const headers = { authorization: `Bearer ${token}`, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' });
    expect((await rawRequest(served.url, { headers: { ...POST_HEADERS, ...headers }, body: ping })).status).toBe(200);
    await transport.terminateSession();
    await client.close();
    const after = await rawRequest(served.url, { headers: { ...POST_HEADERS, ...headers }, body: ping });
    expect(after.status).toBe(404);
    expect(after.json()).toMatchObject({ jsonrpc: '2.0', error: { message: expect.stringContaining('Session not found') } });
    // GET and DELETE need a session.
    expect((await rawRequest(served.url, { method: 'GET', headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } })).status).toBe(400);
  });

  it('keeps at most 64 sessions open: a client that never ends its session does not hold memory forever', async () => {
    const auth = { ...POST_HEADERS, authorization: `Bearer ${token}` };
    const ids: string[] = [];
    for (let i = 0; i < 65; i++) ids.push(String((await rawRequest(served.url, { headers: auth, body: INITIALIZE })).headers['mcp-session-id']));
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
    const pingIn = (id: string) => rawRequest(served.url, { headers: { ...auth, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }, body: ping });
    expect((await pingIn(ids[0]!)).status).toBe(404);
    expect((await pingIn(ids[64]!)).status).toBe(200);
  });

  it('serves only /mcp', async () => {
    const answer = await rawRequest(served.url.replace(/\/mcp$/, '/other'), {
      headers: { ...POST_HEADERS, authorization: `Bearer ${token}` },
      body: INITIALIZE,
    });
    expect(answer.status).toBe(404);
  });
});

describe('mcp serve --http: where and with which token', () => {
  it('refuses a non-loopback --host without --allow-remote (usage error, exit 64)', async () => {
    const refused = await box.run(['mcp', 'serve', '--http', '--host', '0.0.0.0', '--json']);
    expect(refused.code).toBe(64);
    expect(JSON.parse(refused.stderr).data).toMatchObject({ code: 'missive::validation::remote_bind', message: expect.stringContaining('0.0.0.0') });
    expect(JSON.parse(refused.stderr).data.help).toContain('--allow-remote');
  });

  it('keeps one token across launches in --token-file, a file only the user can read, and prints its path, not the token', async () => {
    const file = join(box.home, 'mcp-token');
    const first = await serveHttp(box, ['--token-file', file]);
    let kept: string;
    try {
      expect(first.data).toEqual({ url: expect.stringMatching(/\/mcp$/), bearer: null, token_file: file });
      expect(statSync(file).mode & 0o777).toBe(0o600);
      kept = readFileSync(file, 'utf8').trim();
      expect(first.process.stdout()).not.toContain(kept);
      const { client } = await connectHttp(first.url, kept);
      await client.close();
    } finally {
      expect(await first.stop()).toBe(0);
    }
    const second = await serveHttp(box, ['--token-file', file]);
    try {
      const { client } = await connectHttp(second.url, kept);
      expect((await client.callTool({ name: 'list_agents', arguments: {} })).isError).toBeFalsy();
      await client.close();
    } finally {
      await second.stop();
    }
  });

  it('refuses a --token-file other users can read or with a guessable token (config error, exit 78), and --token-file without --http', async () => {
    const file = join(box.home, 'loose-token');
    writeFileSync(file, `${'k'.repeat(43)}\n`);
    chmodSync(file, 0o644);
    const refused = await box.run(['mcp', 'serve', '--http', '--token-file', file, '--json']);
    expect(refused.code).toBe(78);
    expect(JSON.parse(refused.stderr).data).toMatchObject({ code: 'missive::config::secret_file_insecure', help: expect.stringContaining('chmod 600') });
    const short = join(box.home, 'short-token');
    writeFileSync(short, 'guessable\n', { mode: 0o600 });
    const unfit = await box.run(['mcp', 'serve', '--http', '--token-file', short, '--json']);
    expect(unfit.code).toBe(78);
    expect(JSON.parse(unfit.stderr).data.code).toBe('missive::config::mcp_token_unfit');
    const alone = await box.run(['mcp', 'serve', '--token-file', file, '--json']);
    expect(alone.code).toBe(64);
  });
});
