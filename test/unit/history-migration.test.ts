/**
 * Schema v6: the request history and agent health indexes. A v5 journal keeps its sends after the migration and
 * they are found through the new indexes; on a 100,000-event journal the first history page, an agent's page, an
 * entry by id and an agent's last calls are each read from an index, never by scanning the journal.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../electron/core/store/db.js';
import { MIGRATIONS } from '../../electron/core/store/migrations/index.js';
import {
  latestCallEvent,
  latestCallEventSql,
  listRequestStarts,
  requestEvents,
  requestEventsSql,
  requestStartsSql,
} from '../../electron/core/store/repos/history.js';
import { createCore } from '../../electron/core/context.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { listHistory } from '../../electron/core/history/service.js';
import { sqliteStore } from '../support/sqlite-store.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'missive-history-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const planOf = (db: Db, sql: string, params: unknown[]) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('; ');

/**
 * Appends an event with the columns every schema version has (today's append also writes v13's actor columns, which
 * a v5 file lacks).
 */
const appendEvent = (db: Db, e: { type: string; agentAlias: string; payload: unknown }) =>
  db
    .prepare(`INSERT INTO events (event_id, event_type, agent_alias, payload_json) VALUES (?, ?, ?, ?)`)
    .run(randomUUID(), e.type, e.agentAlias, JSON.stringify(e.payload));

/** A send as the journal records it: the request row, its start and its completion. */
function journalSend(db: Db, alias: string, text: string, outcome: 'completed' | 'failed' = 'completed', answer?: string): string {
  const messageId = randomUUID();
  db.prepare(`INSERT INTO messages (message_id, agent_alias, direction, role, content_json) VALUES (?, ?, 'request', 'user', ?)`).run(
    messageId,
    alias,
    JSON.stringify({ messageId, role: 'ROLE_USER', parts: [{ text }] }),
  );
  appendEvent(db, {
    type: 'a2a.send.started',
    agentAlias: alias,
    payload: { message_id: messageId, interface: { binding: 'json-rpc', url: 'http://127.0.0.1:1/rpc' }, parts: 1, bytes: text.length },
  });
  if (answer) {
    db.prepare(`INSERT INTO messages (message_id, agent_alias, direction, role, content_json) VALUES (?, ?, 'response', 'agent', ?)`).run(
      randomUUID(),
      alias,
      JSON.stringify({ messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text: answer }] }),
    );
  }
  const error = { code: 'missive::transport::connection_refused', category: 'transport', message: 'transport error: refused', exit_code: 69 };
  appendEvent(db, {
    type: `a2a.send.${outcome}`,
    agentAlias: alias,
    payload: outcome === 'failed' ? { message_id: messageId, error } : { message_id: messageId, response_shape: 'message', task: null },
  });
  return messageId;
}

describe('history indexes (schema v6)', () => {
  it('indexes a v5 journal when migrating: its sends are found by message id, by agent and by type, with their answers', async () => {
    const home = tempDir();
    const core = createCore({ env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH }, cwd: home, secrets: createMemorySecretStore() });
    try {
      mkdirSync(dirname(core.paths.database), { recursive: true });
      const v5 = openDatabase(core.paths.database, { migrations: MIGRATIONS.slice(0, 5) });
      v5.prepare(`INSERT INTO agents (alias, base_url) VALUES ('old', 'http://127.0.0.1:1')`).run();
      const first = journalSend(v5, 'old', 'before the upgrade', 'completed', 'answered before the upgrade');
      const second = journalSend(v5, 'old', 'failed before the upgrade', 'failed');
      appendEvent(v5, { type: 'a2a.agent_card.fetched', agentAlias: 'old', payload: { url: 'http://127.0.0.1:1/.well-known/agent-card.json' } });
      v5.close();

      const db = (await sqliteStore(core)).db;
      const indexes = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'`).all() as { name: string }[]).map(
        (r) => r.name,
      );
      expect(indexes).toEqual(expect.arrayContaining(['idx_events_calls', 'idx_events_request_message']));
      expect(listRequestStarts(db, { limit: 10 }).map((e) => e.payload.message_id)).toEqual([second, first]);
      expect(listRequestStarts(db, { agent: 'old', operation: 'send', limit: 1 }).map((e) => e.payload.message_id)).toEqual([second]);
      expect(requestEvents(db, [first]).map((e) => e.type)).toEqual(['a2a.send.started', 'a2a.send.completed']);
      expect(latestCallEvent(db, 'old', 'a2a.send.failed')?.payload).toMatchObject({ message_id: second, error: { category: 'transport' } });
      expect(latestCallEvent(db, 'old', 'a2a.agent_card.fetched')?.type).toBe('a2a.agent_card.fetched');
      expect(latestCallEvent(db, 'old', 'a2a.stream.completed')).toBeUndefined();
      // A v5 completion does not name its response row: the agent's next direct answer is the one.
      expect((await listHistory(core, {})).entries.map((e) => [e.outcome, e.request_text, e.answer_text, e.error?.code ?? null])).toEqual([
        ['failed', 'failed before the upgrade', null, 'missive::transport::connection_refused'],
        ['completed', 'before the upgrade', 'answered before the upgrade', null],
      ]);
    } finally {
      core.close();
    }
  });

  it('lists the first page of a 100,000-event journal from indexes', async () => {
    const home = tempDir();
    const core = createCore({ env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH }, cwd: home, secrets: createMemorySecretStore() });
    try {
      const db = (await sqliteStore(core)).db;
      const sent: string[] = [];
      db.transaction(() => {
        for (const alias of ['busy', 'rare']) db.prepare(`INSERT INTO agents (alias, base_url) VALUES (?, 'http://127.0.0.1:1')`).run(alias);
        const insert = db.prepare(`INSERT INTO events (event_id, event_type, agent_alias, payload_json) VALUES (?, ?, ?, ?)`);
        // A busy streaming agent fills the journal; one send in 500 events goes to a rarely used agent.
        for (let i = 0; i < 100_000; i++) {
          if (i % 500 === 0) sent.push(journalSend(db, 'rare', `request ${i}`));
          else insert.run(randomUUID(), 'a2a.stream.status_update', 'busy', JSON.stringify({ sequence: i, request_message_id: 'elsewhere' }));
        }
      })();
      expect((db.prepare(`SELECT count(*) AS n FROM events`).get() as { n: number }).n).toBeGreaterThanOrEqual(100_000);

      const page = await listHistory(core, { limit: 50 });
      expect(page.entries).toHaveLength(50);
      expect(page.entries[0]).toMatchObject({
        message_id: sent.at(-1),
        agent_alias: 'rare',
        outcome: 'completed',
        request_text: `request ${(sent.length - 1) * 500}`,
      });
      expect(page.entries.map((e) => e.sequence)).toEqual([...page.entries.map((e) => e.sequence as number)].sort((a, b) => b - a));
      const next = await listHistory(core, { agent: 'rare', limit: 50, beforeSequence: page.next_before_sequence! });
      expect(next.entries[0]!.message_id).toBe(sent.at(-51));

      const plans = [
        planOf(db, requestStartsSql({ limit: 51 }).sql, requestStartsSql({ limit: 51 }).params),
        planOf(
          db,
          requestStartsSql({ agent: 'rare', beforeSequence: 9, limit: 51 }).sql,
          requestStartsSql({ agent: 'rare', beforeSequence: 9, limit: 51 }).params,
        ),
        planOf(db, requestStartsSql({ operation: 'stream', limit: 51 }).sql, requestStartsSql({ operation: 'stream', limit: 51 }).params),
        planOf(db, requestEventsSql(50), sent.slice(0, 50)),
        planOf(db, latestCallEventSql, ['busy', 'a2a.send.failed']),
      ];
      expect(plans[0]).toContain('USING INDEX idx_events_type (event_type=?)');
      expect(plans[1]).toContain('USING INDEX idx_events_calls (agent_alias=? AND event_type=? AND sequence<?)');
      expect(plans[2]).toContain('USING INDEX idx_events_type (event_type=?)');
      expect(plans[3]).toContain('USING INDEX idx_events_request_message (<expr>=?)');
      expect(plans[4]).toContain('USING INDEX idx_events_calls (agent_alias=? AND event_type=?)');
      for (const plan of plans) expect(plan).not.toMatch(/SCAN events/);
    } finally {
      core.close();
    }
  });
});
