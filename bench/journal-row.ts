/**
 * What one stored stream update costs SQLite, split by where it goes: the explanation of the stream benchmark's
 * remaining gap. Each case inserts ROWS artifact-chunk updates (the stream bench's typical event), 500 per
 * transaction, into a fresh database with missive's pragmas, and reports the CPU per row (this process does nothing
 * else). Cases, in turn for ROUNDS rounds:
 *
 * - `journal event`: `appendEvent` into the real `events` table (a whole row: the table, idx_events_task, the
 *   event_id unique index, four filter indexes and two more partial ones; before schema v14 also the dedupe_key
 *   index of every row, JSON checks and the context foreign key);
 * - `narrow update row`: what schema v14 writes for a stream's update (`appendUpdateRow`: the table and
 *   idx_events_task), and its share of the run its tick writes (one per transaction here);
 * - `events, no secondary index`: the same row into a copy of `events` with only its primary key;
 * - `events + one index`: that copy with one (task_id, sequence) index: what a lean per-update table would cost;
 * - `chunk row`: the chunk insert an appended artifact chunk adds (`artifact_chunks`, its key and foreign key);
 * - `JSON.stringify only`: serialising the payload, the floor of any store.
 *
 *   npm run bench -- journal-row [ROWS] [ROUNDS]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../electron/core/store/store.js';
import { appendEvent, appendUpdateRow } from '../electron/core/store/repos/events.js';
import { extendRun, type UpdateRun } from '../electron/core/store/rows/update-runs.js';
import { RUNS } from '../electron/core/store/statements/update-runs.js';
import { appendArtifactChunk, ensureContext, writeArtifact } from '../electron/core/store/repos/conversation.js';
import { median } from './_stats.js';

const ROWS = Number(process.argv[2] ?? 50_000);
const ROUNDS = Number(process.argv[3] ?? 3);
const PER_TRANSACTION = 500;

const update = (i: number) => ({
  sequence: i,
  request_message_id: '0190c1d2-0000-7000-8000-000000000001',
  artifactUpdate: {
    taskId: 'bench-task',
    contextId: 'bench-context',
    artifact: { artifactId: 'answer', name: 'answer.txt', parts: [{ text: `token ${i} `, mediaType: 'text/plain' }] },
    append: true,
    lastChunk: false,
  },
});

type Case = { name: string; prepare: (db: ReturnType<typeof openStore>['db']) => (i: number) => void };

/** The events table's columns and JSON checks, with only its primary key (no unique constraint, no foreign key). */
const LEAN = (indexes: string) => `CREATE TABLE lean (
  sequence INTEGER PRIMARY KEY, event_id TEXT NOT NULL, timestamp TEXT NOT NULL, source TEXT NOT NULL, event_type TEXT NOT NULL,
  agent_alias TEXT, context_id TEXT, task_id TEXT, dedupe_key TEXT,
  payload_json TEXT NOT NULL CHECK (json_valid(payload_json)), metadata_json TEXT NOT NULL CHECK (json_valid(metadata_json)), redacted INTEGER NOT NULL
) STRICT; ${indexes}`;
const leanInsert = (db: ReturnType<typeof openStore>['db']) => {
  const insert = db.prepare(
    `INSERT INTO lean (event_id, timestamp, source, event_type, agent_alias, context_id, task_id, payload_json, metadata_json, redacted) VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ','now'), 'cli', 'a2a.stream.artifact_update', 'peer', 'bench-context', 'bench-task', ?, '{}', 1)`,
  );
  return (i: number) => void insert.run(`e-${i}`, JSON.stringify(update(i)));
};

const CASES: Case[] = [
  {
    name: 'journal event (appendEvent, events as migrated)',
    prepare: (db) => (i) =>
      void appendEvent(db, { type: 'a2a.stream.artifact_update', agentAlias: 'peer', contextId: 'bench-context', taskId: 'bench-task', payload: update(i) }),
  },
  {
    name: 'narrow update row and its share of a run (schema v14: appendUpdateRow, one run per transaction)',
    prepare: (db) => {
      let run: UpdateRun | null = null;
      return (i) => {
        const event = { type: 'a2a.stream.artifact_update', agentAlias: 'peer', contextId: 'bench-context', taskId: 'bench-task', payload: update(i) };
        const { sequence } = appendUpdateRow(db, event)!;
        run = extendRun(run, sequence, event);
        if (i % PER_TRANSACTION !== PER_TRANSACTION - 1 && i !== ROWS - 1) return;
        db.prepare(RUNS.insert.sqlite).run(run.last, run.first, run.agentAlias, run.contextId, run.types, run.count);
        run = null;
      };
    },
  },
  {
    name: 'events, no secondary index',
    prepare: (db) => {
      db.exec(LEAN(''));
      return leanInsert(db);
    },
  },
  {
    name: 'events + one (task_id, sequence) index',
    prepare: (db) => {
      db.exec(LEAN('CREATE INDEX lean_task ON lean(task_id, sequence);'));
      return leanInsert(db);
    },
  },
  {
    name: 'artifact chunk row',
    prepare: (db) => {
      db.prepare(`INSERT INTO tasks (task_id, agent_alias, context_id, state) VALUES ('bench-task', 'peer', 'bench-context', 'working')`).run();
      writeArtifact(db, {
        artifactId: 'answer',
        taskId: 'bench-task',
        contextId: 'bench-context',
        name: 'answer.txt',
        mimeType: 'text/plain',
        kind: 'text',
        content: { artifactId: 'answer', parts: [] },
      });
      return (i) => appendArtifactChunk(db, 'bench-task', 'answer', update(i).artifactUpdate.artifact.parts);
    },
  },
  { name: 'JSON.stringify only', prepare: () => (i) => void JSON.stringify(update(i)) },
];

function run(c: Case): number {
  const dir = mkdtempSync(join(tmpdir(), 'missive-bench-journal-row-'));
  const store = openStore(join(dir, 'm.sqlite3'));
  try {
    store.db.prepare(`INSERT INTO agents (alias, base_url) VALUES ('peer', 'http://127.0.0.1:1')`).run();
    ensureContext(store.db, 'bench-context', 'peer');
    const row = c.prepare(store.db);
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < ROWS; i += PER_TRANSACTION) {
      store.transaction(() => {
        for (let j = i; j < Math.min(ROWS, i + PER_TRANSACTION); j++) row(j);
      });
    }
    const cpu = process.cpuUsage(cpu0);
    return (cpu.user + cpu.system) / ROWS;
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const results = new Map<string, number[]>(CASES.map((c) => [c.name, []]));
for (const c of CASES) run(c);
for (let round = 0; round < ROUNDS; round++) for (const c of CASES) results.get(c.name)!.push(run(c));
console.log(`${ROWS} rows per case, ${PER_TRANSACTION} per transaction, ${ROUNDS} rounds after a warm-up, medians of CPU per row`);
const lean = median(results.get('events, no secondary index')!);
for (const [name, values] of results)
  console.log(`  ${name}: ${median(values).toFixed(1)} µs (${(median(values) / lean).toFixed(2)}× the row without secondary indexes)`);
