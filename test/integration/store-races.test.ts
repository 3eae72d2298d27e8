/**
 * Two group writers in one process, end to end: two `streamMessage` calls on one Core (a GUI stream beside a gateway
 * subscription) while both peers send interleaved, in lockstep rounds so each round's data of both streams usually
 * lands in one tick and one transaction. Every event of both is stored exactly once, in order, per task; a
 * write failing in one stream rolls back that write alone while the other stream's rows of the same tick commit; and
 * `core.close()` in the middle of a tick keeps every event the streams had reported.
 */
import type { ServerResponse } from 'node:http';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { streamMessage, type StreamResult } from '../../electron/core/messaging/stream.js';
import { minimalCard, json, startRawServer, type RawServer } from '../support/raw-server.js';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { listEvents } from '../../electron/core/store/repos/events.js';
import { sqliteStore } from '../support/sqlite-store.js';

const PER_ROUND = 5;
const ROUNDS = 20;

let box: Sandbox | undefined;
let servers: RawServer[] = [];
let core: Core | undefined;
afterEach(async () => {
  core?.close();
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  box?.dispose();
});

const sse = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
const round = (name: string, r: number) =>
  Array.from({ length: PER_ROUND }, (_, i) =>
    sse({
      statusUpdate: {
        taskId: `task-${name}`,
        contextId: `ctx-${name}`,
        status: { state: 'TASK_STATE_WORKING', message: { messageId: `${name}-${r}-${i}`, role: 'ROLE_AGENT', parts: [{ text: `${name} ${r}.${i}` }] } },
      },
    }),
  ).join('');

/**
 * Two peers (`gui`, `gw`). A round goes out from both at once, only when the client has applied the whole previous
 * round of every stream still running, so the rounds interleave. Ends each stream after ROUNDS rounds.
 */
async function twoPeers() {
  const names = ['gui', 'gw'] as const;
  const responses = new Map<string, ServerResponse>();
  const seen = new Map<string, number>(names.map((n) => [n, 0]));
  const done = new Set<string>();
  let sent = 0;
  const sendRound = () => {
    if (responses.size < names.length) return;
    for (const [name, res] of responses) {
      if (done.has(name) || res.destroyed) continue;
      if (sent < ROUNDS) res.write(round(name, sent));
      else res.end(sse({ statusUpdate: { taskId: `task-${name}`, contextId: `ctx-${name}`, status: { state: 'TASK_STATE_COMPLETED' } } }));
    }
    sent++;
  };
  for (const name of names) {
    const server = await startRawServer();
    servers.push(server);
    server.route('/.well-known/agent-card.json', (_req, res) => json(res, 200, minimalCard(server.url, { capabilities: { streaming: true } })));
    server.route('/a2a/rest/message:stream', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sse({ task: { id: `task-${name}`, contextId: `ctx-${name}`, status: { state: 'TASK_STATE_SUBMITTED' } } }));
      responses.set(name, res);
      sendRound();
    });
  }
  box = sandbox();
  for (const [i, name] of names.entries()) expect((await box.run(['agent', 'add', name, servers[i]!.url])).code).toBe(0);
  core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
  const check = () => {
    if (names.filter((n) => !done.has(n)).every((n) => seen.get(n)! >= sent * PER_ROUND)) sendRound();
  };
  /** Call from onEvent: counts the stream's status events and sends the next round once every running stream has the current one. */
  const applied = (name: string) => {
    seen.set(name, seen.get(name)! + 1);
    check();
  };
  /** A stream that ended early: the other one no longer waits for it. */
  const stop = (name: string) => {
    done.add(name);
    check();
  };
  return { core, applied, stop };
}

/** A task's stream updates as `missive events list --task` shows them, oldest first (each stored once, as its event). */
const rows = (taskId: string) =>
  readDb(box!, (db: Database.Database) => {
    const updates = listEvents(db, { taskId, limit: 10_000 }).filter((e) => /^a2a\.stream\.(task|message|status_update|artifact_update)$/.test(e.type));
    return {
      count: updates.length,
      ids: updates.map(
        (e) => (e.payload as { statusUpdate?: { status?: { message?: { messageId?: string } } } }).statusUpdate?.status?.message?.messageId ?? null,
      ),
      sequences: updates.map((e) => e.sequence),
    };
  });
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const expectedIds = (name: string, upTo = ROUNDS * PER_ROUND) => [null, ...range(upTo).map((k) => `${name}-${Math.floor(k / PER_ROUND)}-${k % PER_ROUND}`)];

describe('two streams on one core', () => {
  it('stores every event of both interleaved streams exactly once, in order per task', async () => {
    const { core, applied } = await twoPeers();
    const run = (name: string) =>
      streamMessage(core, { agent: name, text: 'go', cwd: box!.home, binding: 'http+json', onEvent: (e) => e.variant === 'statusUpdate' && applied(name) });
    const [gui, gw] = await Promise.all([run('gui'), run('gw')]);
    for (const [name, result] of [
      ['gui', gui],
      ['gw', gw],
    ] as Array<[string, StreamResult]>) {
      expect(result.events).toBe(ROUNDS * PER_ROUND + 2);
      const stored = rows(`task-${name}`);
      expect(stored.count).toBe(ROUNDS * PER_ROUND + 2);
      expect(stored.ids).toEqual([...expectedIds(name), null]);
      expect(stored.sequences).toEqual([...stored.sequences].sort((a, b) => a - b));
    }
  }, 30_000);

  it("rolls back only the failing write of one stream; the other stream's rows of the same tick commit", async () => {
    const { core, applied, stop } = await twoPeers();
    // One write of the gateway's stream fails inside SQLite (as a constraint would), in the middle of a round.
    const poisoned = 'gw-7-2';
    (await sqliteStore(core)).db.exec(
      `CREATE TEMP TRIGGER poison BEFORE INSERT ON main.events WHEN NEW.payload_json LIKE '%${poisoned}%' BEGIN SELECT RAISE(ABORT, 'poisoned write'); END`,
    );
    const reported = { gui: 0, gw: 0 };
    const run = (name: 'gui' | 'gw') =>
      streamMessage(core, {
        agent: name,
        text: 'go',
        cwd: box!.home,
        binding: 'http+json',
        onEvent: (e) => {
          if (e.variant !== 'statusUpdate') return;
          reported[name]++;
          applied(name);
        },
      });
    const gw = run('gw');
    gw.catch(() => stop('gw'));
    const gui = await run('gui');
    await expect(gw).rejects.toThrow(/poisoned write/);
    expect(gui.events).toBe(ROUNDS * PER_ROUND + 2);
    expect(rows('task-gui').count).toBe(ROUNDS * PER_ROUND + 2);
    // The gateway's stream kept every event before the failing one (its tick's included), and nothing of the failing write.
    const gwRows = rows('task-gw');
    expect(reported.gw).toBe(7 * PER_ROUND + 2);
    expect(gwRows.ids).toEqual(expectedIds('gw', 7 * PER_ROUND + 2));
    expect(gwRows.count).toBe(7 * PER_ROUND + 3);
  }, 30_000);

  it('keeps every event both streams reported when the core is closed in the middle of a tick', async () => {
    const { core, applied } = await twoPeers();
    const reported: Record<string, string[]> = { gui: [], gw: [] };
    const abort = new AbortController();
    const run = (name: 'gui' | 'gw') =>
      streamMessage(core, {
        agent: name,
        text: 'go',
        cwd: box!.home,
        binding: 'http+json',
        signal: abort.signal,
        onEvent: (e, record) => {
          if (e.variant !== 'statusUpdate') return;
          reported[name]!.push((record.payload as { status: { message: { messageId: string } } }).status.message.messageId);
          // The window closes while the gateway's round 4 is being applied: its tick is open, with rows of both.
          if (name === 'gw' && reported.gw!.length === 4 * PER_ROUND + 3) {
            core.close();
            // The app goes on shutting down: the streams are cancelled once this tick is over.
            setImmediate(() => abort.abort());
          } else applied(name);
        },
      });
    const outcomes = await Promise.allSettled([run('gui'), run('gw')]);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      expect(String((outcome as PromiseRejectedResult).reason)).not.toMatch(/locked|in use|busy/i);
      // A categorised error (the store was closed, or the stream cut), never an unexpected one.
      expect((outcome as PromiseRejectedResult).reason.code).toMatch(/^missive::(storage|transport)::/);
    }
    for (const name of ['gui', 'gw'] as const) {
      const stored = rows(`task-${name}`);
      expect(stored.ids.slice(1)).toEqual(reported[name]);
      expect(stored.count).toBe(reported[name]!.length + 1);
    }
  }, 30_000);
});
