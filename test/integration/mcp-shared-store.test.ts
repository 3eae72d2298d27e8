/**
 * `missive mcp serve` on a team's shared PostgreSQL store (MISSIVE_STORE_URL), as on the local SQLite file: the same
 * tools answer, every call is journaled in the shared journal with source `mcp` and the client's name (a failed one
 * found by `outcome: failed`, PostgreSQL's own form of the outcome filter), and the store's password reaches no MCP
 * message, no log line and no SQLite file.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { freshPostgresUrl, type FreshDatabase } from '../support/postgres.js';
import { connectStdio, type McpSession } from '../support/mcp.js';

type Answer = CallToolResult & { structuredContent: Record<string, any> };

let db: FreshDatabase;
let box: Sandbox;
let fleet: Awaited<ReturnType<typeof startAgents>>;
let mcp: McpSession;

const call = async (name: string, args: Record<string, unknown> = {}): Promise<Answer> =>
  (await mcp.client.callTool({ name, arguments: args }, CallToolResultSchema)) as Answer;
const texts = (result: CallToolResult): string => result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');

beforeAll(async () => {
  db = await freshPostgresUrl();
  box = sandbox({ MISSIVE_STORE_URL: db.url });
  fleet = await startAgents({ 'team-echo': { behaviour: 'echo' } });
  await register(box, fleet.agents);
  mcp = await connectStdio(box, [], { name: 'team-client' });
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await fleet?.close();
  box?.dispose();
  await db?.drop();
});

describe('mcp serve on a shared PostgreSQL store', () => {
  it('sends through the shared registry and journals each call there, failures included, with no password anywhere', async () => {
    const listed = await call('list_agents');
    expect(listed.structuredContent.agents.map((a: { alias: string }) => a.alias)).toEqual(['team-echo']);
    const answer = await call('send_message', { agent: 'team-echo', text: 'hello team' });
    expect(answer.isError, texts(answer)).toBeFalsy();
    expect(texts(answer)).toContain('hello team');
    const refused = await call('get_task', { task_id: 'no-such-task' });
    expect(refused.isError).toBe(true);

    const calls = await call('search_journal', { type: 'missive.mcp.call', limit: 50 });
    const events = calls.structuredContent.events as Array<Record<string, any>>;
    expect(events.map((e) => e.payload.tool)).toEqual(expect.arrayContaining(['list_agents', 'send_message', 'get_task']));
    expect(events.every((e) => e.source === 'mcp' && e.payload.client.name === 'team-client')).toBe(true);
    const failed = await call('search_journal', { type: 'missive.mcp.call', outcome: 'failed' });
    expect((failed.structuredContent.events as Array<Record<string, any>>).map((e) => e.payload.tool)).toEqual(['get_task']);
    // The send itself is in the shared journal too, written as the MCP client's.
    const sends = await call('history', { agent: 'team-echo' });
    expect(sends.structuredContent.entries[0]).toMatchObject({ request_text: 'hello team', actor: { id: expect.stringMatching(/^mcp:\d+:team-client$/) } });

    const password = decodeURIComponent(new URL(db.url).password);
    expect(password.length).toBeGreaterThan(0);
    expect(mcp.wire.join('\n')).not.toContain(password);
    expect(mcp.stderr()).not.toContain(password);
    expect(existsSync(join(box.home, 'state/profiles/default/missive.sqlite3'))).toBe(false);
  });
});
