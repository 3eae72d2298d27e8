/**
 * The peer of `npm run bench -- stream`, run as its own process so its CPU is not counted: an A2A 1.0 agent whose
 * `message:stream` (HTTP+JSON) answers with EVENTS events as fast as the socket takes them: the task, then artifact
 * chunks appended one after another (a model streaming tokens) with a status update every 100 chunks, then the final
 * status. Prints its base URL on stdout; exits when stdin closes.
 *
 *   node dist/bench/_stream-peer.js EVENTS
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const EVENTS = Number(process.argv[2] ?? 100_000);
const ids = { taskId: 'bench-task', contextId: 'bench-context' };
const sse = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;

function eventAt(i: number): string {
  if (i === 0) return sse({ task: { id: ids.taskId, contextId: ids.contextId, status: { state: 'TASK_STATE_SUBMITTED' } } });
  if (i === EVENTS - 1) return sse({ statusUpdate: { ...ids, status: { state: 'TASK_STATE_COMPLETED' } } });
  if (i % 100 === 0)
    return sse({
      statusUpdate: {
        ...ids,
        status: { state: 'TASK_STATE_WORKING', message: { messageId: `progress-${i}`, role: 'ROLE_AGENT', parts: [{ text: `${i} of ${EVENTS}` }] } },
      },
    });
  return sse({
    artifactUpdate: {
      ...ids,
      artifact: { artifactId: 'answer', name: 'answer.txt', parts: [{ text: `token ${i} `, mediaType: 'text/plain' }] },
      append: i > 1,
      lastChunk: i === EVENTS - 2,
    },
  });
}

/** Writes every event, 64 KiB at a time, waiting for the socket when it is full. */
async function emit(res: ServerResponse): Promise<void> {
  let buffer = '';
  for (let i = 0; i < EVENTS; i++) {
    buffer += eventAt(i);
    if (buffer.length >= 65_536 || i === EVENTS - 1) {
      const ok = res.write(buffer);
      buffer = '';
      if (!ok) await new Promise((resolve) => res.once('drain', resolve));
    }
  }
  res.end();
}

const server = createServer((req, res) => {
  req.resume();
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/.well-known/agent-card.json') {
    const { port } = server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}`;
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        name: 'stream bench peer',
        description: 'emits as fast as it can',
        version: '1.0.0',
        supportedInterfaces: [{ url: `${url}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
        capabilities: { streaming: true },
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [{ id: 'stream', name: 'Stream', description: 'streams', tags: ['bench'] }],
      }),
    );
    return;
  }
  if (req.method === 'POST' && path === '/rest/message:stream') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    void emit(res);
    return;
  }
  res.writeHead(404).end();
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
