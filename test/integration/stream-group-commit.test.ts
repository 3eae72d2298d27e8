/**
 * `missive stream` commits its events in groups (one per tick of network data), not one transaction per event and
 * not only at the end: killed with SIGKILL in the middle of a stream, it keeps every event it had received.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readDb, sandbox, until, type Sandbox } from '../support/cli.js';
import { minimalCard, json, startRawServer, type RawServer } from '../support/raw-server.js';

const root = new URL('../../', import.meta.url).pathname;
const BATCHES = 6;
const PER_BATCH = 100;

let box: Sandbox | undefined;
let server: RawServer | undefined;
afterEach(async () => {
  await server?.close();
  box?.dispose();
});

const streamedEvents = (b: Sandbox) =>
  readDb(b, (db) => (db.prepare(`SELECT COUNT(*) AS n FROM events WHERE event_type IN ('a2a.stream.task', 'a2a.stream.status_update')`).get() as { n: number }).n);

describe('stream group commit', () => {
  it('keeps every received event when the process is killed mid-stream', async () => {
    server = await startRawServer();
    const url = server.url;
    server.route('/.well-known/agent-card.json', (_req, res) => json(res, 200, minimalCard(url, { capabilities: { streaming: true } })));
    server.route('/a2a/rest/message:stream', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
      res.write(event({ task: { id: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_SUBMITTED' } } }));
      // The rest in several writes (several ticks on the client), then the stream stays open: no end, no final event.
      for (let batch = 0; batch < BATCHES; batch++) {
        const chunk = Array.from({ length: PER_BATCH }, (_, i) =>
          event({ statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING', message: { messageId: `m-${batch}-${i}`, role: 'ROLE_AGENT', parts: [{ text: `step ${batch}.${i}` }] } } } }),
        ).join('');
        setTimeout(() => res.write(chunk), 20 * batch);
      }
    });
    box = sandbox();
    expect((await box.run(['agent', 'add', 'raw', url])).code).toBe(0);
    expect((await box.run(['agent', 'inspect', 'raw'])).code).toBe(0);

    const child = spawn(process.execPath, [join(root, 'bin/missive.js'), 'stream', 'raw', 'go', '--ndjson'], { env: box.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal === 'SIGKILL' ? -9 : _code)));
    const expected = 1 + BATCHES * PER_BATCH;
    const b = box;
    try {
      // Visible to another connection while the stream is still open: committed per tick, not held until the end.
      await until(`${expected} committed stream events`, () => streamedEvents(b) === expected, 20_000);
    } finally {
      child.kill('SIGKILL');
    }
    expect(await exited).toBe(-9);
    expect(streamedEvents(box)).toBe(expected);
    const rows = readDb(box, (db) => db.prepare(`SELECT COUNT(*) AS n FROM messages WHERE direction = 'stream_event'`).get() as { n: number });
    expect(rows.n).toBe(expected);
  }, 40_000);
});
