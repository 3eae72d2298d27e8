/**
 * Request history from the journal, through the IPC registry as the History view uses it: real SDK peers (1.0 and
 * v0.3) answering with a message, a task and a stream, a raw peer streaming artifacts only, and an agent that went
 * down (a transport failure). Order, paging, filters, answers, re-running an entry's inputs, and no secret anywhere.
 * On both stores; on PostgreSQL, the history's statements are checked to read the journal by its indexes.
 */
import type { ServerResponse } from 'node:http';
import { writeFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { createRegistry, type Registry } from '../../electron/core/ipc/registry.js';
import { addAuth } from '../../electron/core/auth/service.js';
import type { HistoryEntry } from '../../shared/ipc/contract.js';
import { startAgents } from '../support/agents.js';
import { startV03Peer, type LegacyPeer } from '../support/legacy-peers.js';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';
import pg from 'pg';
import { registryOnStoreEach, STORES, storeUnderTest, type StoreUnderTest } from '../support/stores.js';
import type { JournalRow } from '../../electron/core/store/rows/history.js';
import { requestEventsSql, requestIdsByPrefixSql, requestStartsSql, streamPageSql } from '../../electron/core/store/postgres/repos/history.js';

const TOKEN = 'hist-bearer-secret-0123456789';

/** SSE records: a task whose artifact arrives in two appended chunks, completed without a status message. */
function artifactOnlyStream(res: ServerResponse) {
  const ids = { taskId: 'raw-task', contextId: 'raw-ctx' };
  const records = [
    { task: { id: 'raw-task', contextId: 'raw-ctx', status: { state: 'TASK_STATE_WORKING' } } },
    { artifactUpdate: { ...ids, artifact: { artifactId: 'notes', parts: [{ text: 'part one, ' }] }, append: false, lastChunk: false } },
    { artifactUpdate: { ...ids, artifact: { artifactId: 'notes', parts: [{ text: 'part two' }] }, append: true, lastChunk: true } },
    { statusUpdate: { ...ids, status: { state: 'TASK_STATE_COMPLETED' } } },
  ];
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const record of records) res.write(`data: ${JSON.stringify(record)}\n\n`);
  res.end();
}

const byAgent = (entries: HistoryEntry[], alias: string) => entries.find((e) => e.agent_alias === alias)!;

describe.each(STORES)('request history (%s store)', (kind) => {
  let store: StoreUnderTest;
  let home: string;
  let core: Core;
  let registry: Registry;
  let fleet: Awaited<ReturnType<typeof startAgents>>;
  let v03: LegacyPeer;
  let raw: RawServer;
  /** Request message ids by what was sent, in sending order. */
  const ids: Record<string, string> = {};

  /** Invokes a channel and returns its data, failing with the error report when it answered an error. */
  async function call(channel: string, input: unknown): Promise<any> {
    const result = await registry.invoke(channel, input);
    if (!result.ok) throw new Error(`${channel}: ${JSON.stringify(result.error)}`);
    return result.data;
  }

  beforeAll(async () => {
    store = await storeUnderTest(kind);
    home = mkdtempSync(join(tmpdir(), 'missive-history-'));
    [fleet, v03, raw] = await Promise.all([
      startAgents({ echo: { behaviour: 'echo' }, tasker: { behaviour: 'task' }, chunks: { behaviour: 'chunks', chunks: 3 }, gone: { behaviour: 'echo' } }),
      startV03Peer(),
      startRawServer(),
    ]);
    raw.route('/.well-known/agent-card.json', (_req, res) => json(res, 200, minimalCard(raw.url, { capabilities: { streaming: true } })));
    raw.route('/a2a/rest/message:stream', (_req, res) => artifactOnlyStream(res));
    core = createCore({
      env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH, HIST_TOKEN: TOKEN, ...store.env },
      cwd: home,
      secrets: createMemorySecretStore(),
    });
    registry = createRegistry({ core, cwd: home, emit: () => undefined });
    await addAuth(core, { name: 'histtoken', env: 'HIST_TOKEN' });
    for (const alias of ['echo', 'tasker', 'chunks', 'gone'] as const)
      await call('agents.add', { alias, baseUrl: fleet.agents[alias]!.baseUrl, authRef: 'histtoken' });
    await call('agents.add', { alias: 'legacy', baseUrl: v03.baseUrl });
    await call('agents.add', { alias: 'rawstream', baseUrl: raw.url });

    writeFileSync(join(home, 'brief.txt'), 'the brief\n');
    const echoed = await call('messages.send', {
      agent: 'echo',
      // The token typed into the message is scrubbed from everything missive keeps.
      inputs: {
        text: `hello, my token is ${TOKEN}`,
        parts: ['text=second part'],
        jsonParts: ['{"k":[1,2]}'],
        fileUrls: ['brief.txt'],
        metadata: ['team=ops', 'n=42', 'code="7"'],
      },
    });
    ids.echo = echoed.request.message_id;
    ids.tasker = (await call('messages.send', { agent: 'tasker', inputs: { text: 'build it' } })).request.message_id;
    const streamed = await call('messages.stream', { agent: 'chunks', inputs: { text: 'stream it' } });
    ids.chunks = streamed.request.message_id;
    ids.rawstream = (await call('messages.stream', { agent: 'rawstream', inputs: { text: 'notes please' } })).request.message_id;
    // The card is cached, then the agent goes away: the send fails in transport.
    await call('agents.inspect', { alias: 'gone' });
    await fleet.agents.gone!.close();
    const failed = await registry.invoke('messages.send', { agent: 'gone', inputs: { text: 'anyone there?' } });
    expect(failed).toMatchObject({ ok: false, error: { category: 'transport' } });
    ids.legacy = (await call('messages.send', { agent: 'legacy', inputs: { text: 'echo from the past' } })).request.message_id;
    ids.legacyStream = (await call('messages.stream', { agent: 'legacy', inputs: { text: 'echo streamed' } })).request.message_id;
  });

  afterAll(async () => {
    await registry.dispose();
    core.close();
    await Promise.all([fleet.close(), v03.close(), raw.close(), store.release()]);
    rmSync(home, { recursive: true, force: true });
  });

  it('lists every send and stream newest first, with outcome, state, request and answer text', async () => {
    const { entries, next_before_sequence } = await call('history.list', {});
    expect(next_before_sequence).toBeNull();
    expect(entries.map((e: HistoryEntry) => [e.agent_alias, e.operation, e.outcome])).toEqual([
      ['legacy', 'stream', 'completed'],
      ['legacy', 'send', 'completed'],
      ['gone', 'send', 'failed'],
      ['rawstream', 'stream', 'completed'],
      ['chunks', 'stream', 'completed'],
      ['tasker', 'send', 'completed'],
      ['echo', 'send', 'completed'],
    ]);
    const echo = byAgent(entries, 'echo');
    expect(echo).toMatchObject({ message_id: ids.echo, task_id: null, state: null, error: null, request_text: 'hello, my token is [REDACTED]\nsecond part' });
    expect(echo.answer_text).toMatch(/^echo: hello, my token is /);
    // Sent without a context, answered in the one the agent opened.
    expect(echo.context_id).toEqual(expect.any(String));
    expect(echo.inputs.contextId).toBeUndefined();
    expect(echo.finished_at! >= echo.started_at).toBe(true);
    expect(byAgent(entries, 'tasker')).toMatchObject({ state: 'completed', answer_text: 'done: build it', request_text: 'build it' });
    expect(byAgent(entries, 'tasker').task_id).toEqual(expect.any(String));
    expect(byAgent(entries, 'chunks')).toMatchObject({ operation: 'stream', state: 'completed', answer_text: 'done: stream it' });
    // No message and no status text: the answer is the text the stream brought, chunks joined in order.
    expect(byAgent(entries, 'rawstream')).toMatchObject({ task_id: 'raw-task', state: 'completed', answer_text: 'part one, part two' });
    // A stream answered with a message: its text is the answer.
    expect(entries[0]).toMatchObject({ message_id: ids.legacyStream, answer_text: 'echo: echo streamed', task_id: null });
    expect(entries[1]).toMatchObject({ answer_text: 'echo: echo from the past', dialect: '0.3', url: `${v03.baseUrl}/rpc` });
    const gone = byAgent(entries, 'gone');
    expect(gone).toMatchObject({ outcome: 'failed', answer_text: null, error: { code: 'missive::transport::connection_refused' } });
    expect(gone.error!.message).toMatch(/refused/);
  });

  it('pages by sequence and filters by agent and operation', async () => {
    const all = (await call('history.list', {})).entries.map((e: HistoryEntry) => e.message_id);
    const seen: string[] = [];
    let cursor: number | undefined;
    for (let page = 0; page < 10; page++) {
      const result = await call('history.list', { limit: 4, ...(cursor ? { beforeSequence: cursor } : {}) });
      seen.push(...result.entries.map((e: HistoryEntry) => e.message_id));
      if (result.next_before_sequence === null) break;
      cursor = result.next_before_sequence;
    }
    expect(seen).toEqual(all);
    expect((await call('history.list', { limit: 4 })).entries).toHaveLength(4);
    expect((await call('history.list', { agent: 'echo' })).entries.map((e: HistoryEntry) => e.message_id)).toEqual([ids.echo]);
    expect((await call('history.list', { operation: 'stream' })).entries.map((e: HistoryEntry) => e.message_id)).toEqual([
      ids.legacyStream,
      ids.rawstream,
      ids.chunks,
    ]);
    expect((await call('history.list', { agent: 'legacy', operation: 'send' })).entries.map((e: HistoryEntry) => e.message_id)).toEqual([ids.legacy]);
    expect((await call('history.list', { agent: 'chunks', operation: 'send' })).entries).toEqual([]);
    expect(await registry.invoke('history.list', { limit: 0 })).toMatchObject({ ok: false, error: { code: 'missive::validation::invalid_input' } });
  });

  it('gets one entry with its request, its response and the answer whole', async () => {
    const echo = await call('history.get', { messageId: ids.echo });
    expect(echo.request).toMatchObject({ messageId: ids.echo, role: 'ROLE_USER' });
    expect(echo.response.message.parts[0].text).toMatch(/^echo: hello/);
    expect(echo).toHaveProperty('wire');
    const tasker = await call('history.get', { messageId: ids.tasker });
    expect(tasker.response.task).toMatchObject({ id: tasker.entry.task_id, status: { state: 'TASK_STATE_COMPLETED' } });
    expect(tasker.response.task.artifacts[0].parts[0].text).toBe('result for: build it');
    const chunks = await call('history.get', { messageId: ids.chunks });
    expect(chunks.response.task.artifacts[0].parts.map((p: { text: string }) => p.text).join('')).toBe(
      'chunk 1 of 3 for: stream it\nchunk 2 of 3 for: stream it\nchunk 3 of 3 for: stream it\n',
    );
    const legacyStream = await call('history.get', { messageId: ids.legacyStream });
    expect(legacyStream.response.message).toMatchObject({ role: 'ROLE_AGENT', parts: [{ text: 'echo: echo streamed' }] });
    const gone = await registry.invoke('history.get', { messageId: 'no-such-request' });
    expect(gone).toMatchObject({ ok: false, error: { code: 'missive::validation::unknown_request', exit_code: 64 } });
  });

  it('keeps what Compose needs to re-run an entry, and re-running sends the same parts', async () => {
    const original = await call('history.get', { messageId: ids.echo });
    expect(original.entry.inputs).toEqual({
      text: 'hello, my token is [REDACTED]',
      parts: ['text=second part'],
      fileUrls: [join(home, 'brief.txt')],
      jsonParts: ['{"k":[1,2]}'],
      metadata: ['team=ops', 'n=42', 'code="7"'],
      binding: expect.any(String),
    });
    expect(original.entry.inputs_omitted).toEqual([]);
    const rerun = await call('messages.send', { agent: 'echo', inputs: original.entry.inputs });
    const again = await call('history.get', { messageId: rerun.request.message_id });
    expect(again.request.parts).toEqual(original.request.parts);
    expect(again.request.metadata).toEqual({ team: 'ops', n: 42, code: '7' });
    expect(again.entry.inputs).toEqual(original.entry.inputs);
    expect((await call('history.list', { agent: 'echo' })).entries.map((e: HistoryEntry) => e.message_id)).toEqual([rerun.request.message_id, ids.echo]);
  });

  it('never shows a secret: not the token sent as Authorization, nor the one typed into a message', async () => {
    const list = await registry.invoke('history.list', {});
    const gets = await Promise.all(Object.values(ids).map((messageId) => registry.invoke('history.get', { messageId })));
    expect(gets.every((g) => g.ok)).toBe(true);
    expect(fleet.agents.echo!.requests.some((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
    for (const output of [list, ...gets]) expect(JSON.stringify(output)).not.toContain(TOKEN);
  });
});

describe.each(STORES)('the history’s journal scans (%s store)', (kind) => {
  let core: Core;
  registryOnStoreEach(kind, (opened) => void (core = opened.core));

  it('reads a stream’s events across pages, within its bounds, and stops when the reader has what it shows', async () => {
    const storage = await core.storage();
    // A stream's start, then 2,500 journal rows: every 100th is one of its events, the others another stream's.
    const start = (await storage.journal.append({ type: 'a2a.stream.started', payload: { message_id: 'm-1' } }))!.sequence;
    const sequences: number[] = [];
    await storage.transaction(async (tx) => {
      for (let i = 0; i < 2500; i++) {
        const mine = i % 100 === 0;
        const type = mine ? 'a2a.stream.artifact_update' : i === 50 ? 'a2a.send.completed' : 'a2a.stream.status_update';
        sequences.push((await tx.journal.append({ type, payload: { request_message_id: mine || i === 50 ? 'm-1' : 'm-2', n: i } }))!.sequence);
      }
    });
    const scan = async (maxScanned: number, before: number | null = null, stopAfter = Infinity) => {
      const seen: number[] = [];
      await storage.history.scanStreamEvents('m-1', start, before, maxScanned, (event: JournalRow) => {
        seen.push(event.payload.n as number);
        return seen.length < stopAfter;
      });
      return seen;
    };
    const all = Array.from({ length: 25 }, (_, i) => i * 100);
    expect(await scan(Number.MAX_SAFE_INTEGER)).toEqual(all);
    expect(await scan(1500)).toEqual(all.filter((n) => n < 1500));
    expect(await scan(Number.MAX_SAFE_INTEGER, sequences[1000]!)).toEqual(all.filter((n) => n < 1000));
    expect(await scan(Number.MAX_SAFE_INTEGER, null, 3)).toEqual([0, 100, 200]);
    expect(await scan(0)).toEqual([]);
  });

  it('reads a task’s artifact chunks in order across pages, at most as many as asked', async () => {
    const storage = await core.storage();
    await storage.agents.insert({ alias: 'maker', source: 'local', baseUrl: 'http://127.0.0.1:9/' });
    await storage.transaction(async (tx) => {
      await tx.conversation.ensurePlaceholderTask('t-1', 'maker');
      const write = (artifactId: string, i: number) =>
        tx.conversation.writeArtifact({
          artifactId,
          taskId: 't-1',
          contextId: null,
          name: null,
          mimeType: 'text/plain',
          kind: 'text',
          content: { artifactId, parts: [{ text: `${artifactId}${i}` }] },
          mode: 'append',
        });
      for (let i = 0; i < 250; i++) await write('b-long', i);
      for (let i = 0; i < 3; i++) await write('a-short', i);
    });
    const scan = async (maxChunks: number, artifactId?: string, stopAfter = Infinity) => {
      const seen: string[] = [];
      await storage.history.scanArtifactChunks('t-1', maxChunks, artifactId, (chunk) => {
        seen.push(`${chunk.artifactId}:${(chunk.parts[0] as { text: string }).text}`);
        return seen.length < stopAfter;
      });
      return seen;
    };
    const long = Array.from({ length: 250 }, (_, i) => `b-long:b-long${i}`);
    expect(await scan(10_000)).toEqual(['a-short:a-short0', 'a-short:a-short1', 'a-short:a-short2', ...long]);
    expect(await scan(10_000, 'b-long')).toEqual(long);
    expect(await scan(120, 'b-long')).toEqual(long.slice(0, 120));
    expect(await scan(200)).toEqual(['a-short:a-short0', 'a-short:a-short1', 'a-short:a-short2', ...long.slice(0, 197)]);
    expect(await scan(10_000, undefined, 5)).toHaveLength(5);
  });
});

describe.each(STORES)('updates read as messages (%s store)', (kind) => {
  let core: Core;
  registryOnStoreEach(kind, (opened) => void (core = opened.core));

  it('reads each update once, one journaled by an earlier version (with a message row) too, whatever its text holds', async () => {
    const storage = await core.storage();
    await storage.agents.insert({ alias: 'maker', source: 'local', baseUrl: 'http://127.0.0.1:9/' });
    await storage.transaction(async (tx) => {
      await tx.conversation.ensureContext('ctx-u', 'maker');
      await tx.conversation.ensurePlaceholderTask('t-u', 'maker', 'ctx-u');
      // An earlier version stored the update twice: as a message row, and as its event naming that row.
      const old = { statusUpdate: { taskId: 't-u', contextId: 'ctx-u', status: { state: 'TASK_STATE_WORKING' } } };
      await tx.conversation.insertMessage({
        messageId: 'row-old',
        agentAlias: 'maker',
        contextId: 'ctx-u',
        taskId: 't-u',
        direction: 'stream_event',
        role: 'system',
        protocolMessageId: null,
        content: old,
      });
      await tx.journal.append({
        type: 'a2a.stream.status_update',
        agentAlias: 'maker',
        contextId: 'ctx-u',
        taskId: 't-u',
        payload: { ...old, message_row: 'row-old' },
      });
      // Now: the event alone; its text holds what PostgreSQL's json operators refuse.
      await tx.journal.append({
        type: 'a2a.stream.artifact_update',
        agentAlias: 'maker',
        contextId: 'ctx-u',
        taskId: 't-u',
        payload: { artifactUpdate: { taskId: 't-u', artifact: { artifactId: 'a', parts: [{ text: 'nul \u0000 and lone \ud800' }] } } },
      });
      // A stream answered with a message: no task.
      await tx.journal.append({
        type: 'a2a.stream.message',
        agentAlias: 'maker',
        contextId: 'ctx-u',
        payload: { message: { messageId: 'pm-1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } },
      });
    });
    const responses = await storage.conversation.responsesOfTask('t-u');
    expect(responses.map((m) => [m.direction, Object.keys(m.content)[0]])).toEqual([
      ['stream_event', 'artifactUpdate'],
      ['stream_event', 'statusUpdate'],
    ]);
    expect(responses[0]!.content.artifactUpdate).toMatchObject({ artifact: { parts: [{ text: 'nul \u0000 and lone \ud800' }] } });
    expect(responses[1]!.message_id).toBe('row-old');
    expect((await storage.conversation.directResponsesOf('maker', 'ctx-u')).map((m) => m.content)).toEqual([
      { message: { messageId: 'pm-1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } },
    ]);
    const thread = await storage.history.messagesOfContext('ctx-u');
    expect(thread.map((m) => [m.message_id === 'row-old' ? 'row' : 'event', m.protocol_message_id])).toEqual([
      ['row', null],
      ['event', null],
      ['event', 'pm-1'],
    ]);
    // The context's count shows each update once: the message row of the old one is not counted again.
    expect((await storage.history.listContexts(10)).find((c) => c.context_id === 'ctx-u')).toMatchObject({ messages: 3, tasks: 1, events: 3 });
    expect((await storage.history.contextRows('ctx-u')).messages).toHaveLength(3);
  });
});

describe('request history (postgres store only)', () => {
  let core: Core;
  let store: StoreUnderTest;
  let registry: Registry;
  registryOnStoreEach('postgres', (opened) => void ({ core, store, registry } = opened));

  it('lists a journal of thousands of events from its indexes, never reading the whole journal', async () => {
    await (await core.storage()).agents.insert({ alias: 'rare', source: 'local', baseUrl: 'http://127.0.0.1:9/' });
    const pool = new pg.Pool({ connectionString: store.env.MISSIVE_STORE_URL, options: '-c search_path=missive_default', max: 1 });
    try {
      // 6,000 events: a busy agent's sends (started, completed) and stream updates; every 60th a send to a rarely
      // used agent, completed 10 events later. Most of the journal is request events: reading all of them is no plan.
      await pool.query(`INSERT INTO events (event_id, event_type, agent_alias, payload_json)
        SELECT 'e-' || i,
               CASE WHEN i % 60 = 0 OR i % 3 = 0 THEN 'a2a.send.started' WHEN i % 60 = 10 OR i % 3 = 1 THEN 'a2a.send.completed' ELSE 'a2a.stream.status_update' END,
               CASE WHEN i % 60 IN (0, 10) THEN 'rare' ELSE 'busy' END,
               CASE WHEN i % 60 IN (0, 10) THEN json_build_object('message_id', 'req-' || (i / 60), 'response_shape', 'message')::text
                    WHEN i % 3 = 0 THEN json_build_object('message_id', 'busy-' || i, 'response_shape', 'message')::text
                    WHEN i % 3 = 1 THEN json_build_object('message_id', 'busy-' || (i - 1), 'response_shape', 'message')::text
                    ELSE json_build_object('request_message_id', 'busy-' || (i - 2), 'n', i)::text END
        FROM generate_series(1, 6000) AS i`);
      await pool.query('ANALYZE events');
      const list = async (input: Record<string, unknown>) => {
        const result = await registry.invoke('history.list', input);
        if (!result.ok) throw new Error(JSON.stringify(result.error));
        return result.data as { entries: HistoryEntry[]; next_before_sequence: number | null };
      };
      const page = await list({ limit: 50 });
      expect(page.entries).toHaveLength(50);
      // The newest send has no completion yet (the journal ends before it).
      expect(page.entries.slice(0, 2)).toMatchObject([
        { message_id: 'req-100', agent_alias: 'rare', outcome: 'running' },
        { message_id: 'busy-5997', agent_alias: 'busy', outcome: 'completed' },
      ]);
      const rare = (await list({ agent: 'rare', limit: 200 })).entries.map((e) => e.message_id);
      expect(rare).toHaveLength(100);
      const next = await list({ agent: 'rare', limit: 50, beforeSequence: page.next_before_sequence });
      expect(next.entries.map((e) => e.message_id)).toEqual(rare.filter((id) => !page.entries.some((e) => e.message_id === id)).slice(0, 50));

      const plan = async (sql: string, params: unknown[]) => (await pool.query(`EXPLAIN ${sql}`, params)).rows.map((r) => r['QUERY PLAN'] as string).join('\n');
      const starts = (q: Parameters<typeof requestStartsSql>[0]) => plan(requestStartsSql(q).sql, requestStartsSql(q).params);
      const plans = {
        starts: await starts({ limit: 51 }),
        startsOfAgent: await starts({ agent: 'rare', beforeSequence: 3000, limit: 51 }),
        streamStarts: await starts({ operation: 'stream', limit: 51 }),
        ends: await plan(requestEventsSql, [Array.from({ length: 50 }, (_, i) => `req-${i}`)]),
        prefix: await plan(requestIdsByPrefixSql, ['req-1', 'req-1\u{10FFFF}']),
        streamPage: await plan(streamPageSql, [100, Number.MAX_SAFE_INTEGER, 1000, 'req-1']),
      };
      expect(plans.starts).toMatch(/Index Scan Backward using idx_events_type on events/);
      expect(plans.startsOfAgent).toMatch(/Index Scan Backward using idx_events_calls on events/);
      expect(plans.streamStarts).toMatch(/Index Scan Backward using idx_events_type on events/);
      expect(plans.ends).toMatch(/idx_events_request_message/);
      expect(plans.prefix).toMatch(/idx_events_request_message/);
      expect(plans.streamPage).toMatch(/Index Scan using events_pkey on events/);
      for (const [name, text] of Object.entries(plans)) expect(text, name).not.toMatch(/Seq Scan on events/);
    } finally {
      await pool.end();
    }
  });
});
