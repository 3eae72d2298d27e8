/**
 * The load generator's own overhead: `missive load`'s engine (runLoad, open-loop) against autocannon, both at the
 * same fixed rate against the same bare `node:http` target on 127.0.0.1, which answers the A2A card and a fixed
 * JSON-RPC SendMessage answer (a Message) at once. The target: the generator's p50 within 0.2 ms of autocannon's.
 * A second comparison runs both closed-loop with one connection, where each latency is a bare round trip: the
 * difference there is what the generator itself adds to each request.
 *
 * Latencies are compared at microsecond resolution: autocannon's own histogram holds whole milliseconds, so its
 * side is read from its `response` events (each request's time from its write, hrtime, fractional ms); the
 * generator's from its report (an HDR histogram at microsecond resolution, measured from each request's scheduled
 * start). The two run alternately ROUNDS times after one warm-up each (paired); medians of the rounds are printed.
 *
 *   npm run bench:load            # or: npm run bench -- load-overhead [RATE] [SECONDS] [ROUNDS]
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createCore } from '../electron/core/context.js';
import { createMemorySecretStore } from '../electron/core/auth/secret-store.js';
import { addAgent } from '../electron/core/agents/registry.js';
import { loadCard } from '../electron/core/agents/discovery.js';
import { closeSharedDispatcher } from '../electron/core/a2a/http.js';
import { runLoad } from '../electron/core/load/run.js';
import { median, paired, quantile, ratioLine } from './_stats.js';

const RATE = Number(process.argv[2] ?? 2000);
const SECONDS = Number(process.argv[3] ?? 10);
const ROUNDS = Number(process.argv[4] ?? 3);
const TARGET_MS = 0.2;

function target(base: () => string) {
  const card = () =>
    JSON.stringify({
      name: 'bare',
      description: 'a bare node:http target',
      version: '1.0.0',
      supportedInterfaces: [{ url: `${base()}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'echo', name: 'Echo', description: 'answers ok', tags: ['text'] }],
    });
  const answer = (id: unknown) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      result: { message: { messageId: 'answer-1', contextId: 'ctx-1', role: 'ROLE_AGENT', parts: [{ text: 'ok' }] } },
    });
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(card());
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let id: unknown = null;
      try {
        id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown }).id ?? null;
      } catch {
        // a bad body still gets the fixed answer
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer(id));
    });
  });
}

let baseUrl = '';
const server = target(() => baseUrl);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const home = mkdtempSync(join(tmpdir(), 'missive-bench-load-'));
const core = createCore({ env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH }, cwd: home, secrets: createMemorySecretStore(), timeoutMs: 30_000 });

/** The POST the generator sends: a JSON-RPC SendMessage with one text part. */
const body = JSON.stringify({
  jsonrpc: '2.0',
  id: '1',
  method: 'SendMessage',
  params: { message: { messageId: 'bench-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
});

/** Open-loop at RATE (the comparison), or closed-loop with one connection / one virtual user (pure round trips). */
type Mode = 'open' | 'closed';
interface Figures {
  p50: number[];
  p99: number[];
  note: string[];
}
const figures = (): Record<'autocannon' | 'missive', Figures> => ({ autocannon: { p50: [], p99: [], note: [] }, missive: { p50: [], p99: [], note: [] } });

async function viaAutocannon(mode: Mode, seconds: number, keep: Figures | null): Promise<number> {
  const times: number[] = [];
  const result = await new Promise<{ non2xx: number; errors: number; latency: { p50: number; p99: number } }>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${baseUrl}/a2a/jsonrpc`,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'a2a-version': '1.0' },
        body,
        ...(mode === 'open' ? { connections: 20, overallRate: RATE } : { connections: 1 }),
        duration: seconds,
      },
      (error, r) => (error ? reject(error) : resolve(r)),
    );
    instance.on('response', (_client, status, _bytes, ms) => void (status === 200 && times.push(ms)));
  });
  if (result.non2xx || result.errors) throw new Error(`autocannon: ${result.non2xx} non-2xx, ${result.errors} errors`);
  if (keep) {
    keep.p50.push(quantile(times, 0.5));
    keep.p99.push(quantile(times, 0.99));
    keep.note.push(`p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`);
  }
  return quantile(times, 0.5);
}

async function viaGenerator(mode: Mode, seconds: number, keep: Figures | null): Promise<number> {
  const report = await runLoad(core, {
    target: 'bare',
    model: mode === 'open' ? { kind: 'open', rate: RATE } : { kind: 'closed', concurrency: 1 },
    durationMs: seconds * 1000,
    warmupMs: 0,
    stream: false,
    binding: 'json-rpc',
    untilFinal: false,
    inputs: [{ text: 'hi' }],
    record: false,
    maxRequests: 1_000_000,
  });
  if (report.requests.failed) throw new Error(`missive load: ${report.requests.failed} failed: ${JSON.stringify(report.errors)}`);
  if (keep) {
    keep.p50.push(report.latency.answer.p50);
    keep.p99.push(report.latency.answer.p99);
    keep.note.push(mode === 'open' ? `max lag ${report.generator.max_lag_ms.toFixed(2)} ms` : `${Math.round(report.rate.achieved)}/s`);
  }
  return report.latency.answer.p50;
}

const f = (x: number) => `${x.toFixed(3)} ms`;
const signed = (x: number) => `${x >= 0 ? '+' : ''}${f(x)}`;

/** Runs both tools alternately (paired(): each once first as a 2 s warm-up, not kept) and prints their medians. */
async function compare(mode: Mode): Promise<{ autocannon: number; missive: number }> {
  const kept = figures();
  let warm = true;
  await paired(
    ROUNDS,
    () => viaAutocannon(mode, warm ? 2 : SECONDS, warm ? null : kept.autocannon),
    async () => {
      const p50 = await viaGenerator(mode, warm ? 2 : SECONDS, warm ? null : kept.missive);
      warm = false;
      return p50;
    },
  );
  const a = { p50: median(kept.autocannon.p50), p99: median(kept.autocannon.p99) };
  const m = { p50: median(kept.missive.p50), p99: median(kept.missive.p99) };
  const what = mode === 'open' ? `open-loop at ${RATE}/s (autocannon: 20 connections, overallRate)` : 'closed-loop, one connection / one virtual user';
  console.log(`${what}, ${SECONDS} s, ${ROUNDS} round(s) each after a warm-up (medians of the rounds)`);
  console.log(`  autocannon:   p50 ${f(a.p50)}  p99 ${f(a.p99)}   (its own whole-ms histogram: ${kept.autocannon.note.join('; ')})`);
  console.log(`  missive load: p50 ${f(m.p50)}  p99 ${f(m.p99)}   (${kept.missive.note.join(', ')})`);
  console.log(`  difference:   p50 ${signed(m.p50 - a.p50)}  p99 ${signed(m.p99 - a.p99)}`);
  return { autocannon: a.p50, missive: m.p50 };
}

try {
  await addAgent(core, { alias: 'bare', baseUrl });
  await loadCard(core, 'bare');
  console.log('against a bare node:http target on 127.0.0.1, in this process');
  const open = await compare('open');
  const closed = await compare('closed');
  // Each ratio's target is autocannon's p50 + 0.2 ms: met exactly when the p50s are within 0.2 ms.
  for (const [name, p50] of [
    ['open-loop', open],
    ['closed-loop', closed],
  ] as const)
    console.log(
      ratioLine(
        `${name} p50: missive load ${f(p50.missive)}, autocannon ${f(p50.autocannon)} (within ${TARGET_MS} ms)`,
        p50.missive / p50.autocannon,
        Number(((p50.autocannon + TARGET_MS) / p50.autocannon).toFixed(2)),
      ),
    );
} finally {
  core.close();
  await closeSharedDispatcher();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(home, { recursive: true, force: true });
}
