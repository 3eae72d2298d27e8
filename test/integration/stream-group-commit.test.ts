/**
 * `missive stream` commits its events in groups (one per tick of network data), not one transaction per event and
 * not only at the end: SIGKILLed on a random tick while the peer keeps sending, it keeps every event it had printed
 * except at most the last tick's. On both stores: PostgreSQL's ticks hold their rows in memory until they commit
 * (postgres/update-ticks.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { minimalCard, json, startRawServer, type RawServer } from '../support/raw-server.js';
import { STORES, storeUnderTest, type StoreUnderTest } from '../support/stores.js';

const root = new URL('../../', import.meta.url).pathname;
/** Events per write of the peer. A write goes out only once the client printed the previous one's first event, so it never joins a tick already read: a tick holds at most one write. */
const PER_WRITE = 25;
/** The peer's bound: far more than the kill needs, so it is still sending when the kill comes. */
const MAX_WRITES = 400;

let box: Sandbox | undefined;
let server: RawServer | undefined;
let child: ChildProcess | undefined;
let store: StoreUnderTest | undefined;
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await server?.close();
  box?.dispose();
  await store?.release();
  store = undefined;
});

const STORED = `SELECT event_id FROM events WHERE event_type IN ('a2a.stream.task', 'a2a.stream.status_update')`;

/** The ids of the stream's journal events, as the store holds them. */
async function storedIds(kind: StoreUnderTest['kind'], box: Sandbox): Promise<Set<string>> {
  if (kind === 'sqlite') return new Set(readDb(box, (db) => (db.prepare(STORED).all() as Array<{ event_id: string }>).map((r) => r.event_id)));
  const client = new pg.Client({ connectionString: box.env.MISSIVE_STORE_URL, options: '-c search_path=missive_default' });
  await client.connect();
  try {
    return new Set((await client.query<{ event_id: string }>(STORED)).rows.map((r) => r.event_id));
  } finally {
    await client.end();
  }
}

const event = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
const statusWrite = (write: number) =>
  Array.from({ length: PER_WRITE }, (_, i) =>
    event({
      statusUpdate: {
        taskId: 'task-1',
        contextId: 'ctx-1',
        status: { state: 'TASK_STATE_WORKING', message: { messageId: `m-${write}-${i}`, role: 'ROLE_AGENT', parts: [{ text: `step ${write}.${i}` }] } },
      },
    }),
  ).join('');

describe.each(STORES)('stream group commit (%s store)', (kind) => {
  it('loses at most the last tick when SIGKILLed on a random tick while the peer keeps sending', async () => {
    server = await startRawServer();
    const url = server.url;
    let writes = 0;
    let sendNext = () => {};
    server.route('/.well-known/agent-card.json', (_req, res) => json(res, 200, minimalCard(url, { capabilities: { streaming: true } })));
    server.route('/a2a/rest/message:stream', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event({ task: { id: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_SUBMITTED' } } }));
      sendNext = () => {
        if (writes < MAX_WRITES && !res.destroyed) res.write(statusWrite(writes++));
      };
      sendNext();
    });
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
    expect((await box.run(['agent', 'add', 'raw', url])).code).toBe(0);
    expect((await box.run(['agent', 'inspect', 'raw'])).code).toBe(0);

    // A random event past the first few writes, usually inside a write (a tick), so the kill lands mid-tick or between ticks.
    const killAt = 1 + 3 * PER_WRITE + Math.floor(Math.random() * 12 * PER_WRITE);
    child = spawn(process.execPath, [join(root, 'bin/missive.js'), 'stream', 'raw', 'go', '--ndjson'], { env: box.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const running = child;
    const exited = new Promise<string | number | null>((resolve) => running.on('exit', (code, signal) => resolve(signal ?? code)));
    /** The id of every event the process printed, in order (read as it prints them; the pipe keeps what it wrote before the kill). */
    const printed: string[] = [];
    let writesWhenKilled = 0;
    const lines = createInterface({ input: running.stdout! });
    lines.on('line', (line) => {
      const envelope = JSON.parse(line) as { kind: string; data: { message_id: string; sequence: number } };
      if (envelope.kind !== 'stream_event') return;
      printed.push(envelope.data.message_id);
      // The first event of a write is printed: the peer sends the next one.
      if (envelope.data.sequence > 1 && (envelope.data.sequence - 2) % PER_WRITE === 0) sendNext();
      if (printed.length === killAt) {
        writesWhenKilled = writes;
        running.kill('SIGKILL');
      }
    });
    const closed = new Promise<void>((resolve) => lines.on('close', resolve));

    expect(await exited).toBe('SIGKILL');
    await closed;
    expect(printed.length).toBeGreaterThanOrEqual(killAt);
    expect(writesWhenKilled).toBeLessThan(MAX_WRITES);

    // Each update is stored once, as its journal event, under the id the stream printed.
    const stored = await storedIds(kind, box);
    // What is missing is the end of what was printed, one tick (one write) at most.
    const kept = printed.findIndex((id) => !stored.has(id));
    const lost = kept === -1 ? 0 : printed.length - kept;
    expect(printed.slice(kept === -1 ? printed.length : kept).filter((id) => stored.has(id))).toEqual([]);
    expect(lost).toBeLessThanOrEqual(PER_WRITE);
    expect(stored.size).toBeGreaterThanOrEqual(printed.length - PER_WRITE);
  }, 40_000);
});
