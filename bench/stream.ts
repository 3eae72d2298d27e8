/**
 * Streaming cost against the official SDK client. A peer process (bench/_stream-peer.ts) answers SendStreamingMessage
 * with EVENTS events as fast as the socket takes them. In this process, in turn: the SDK client's
 * `sendMessageStream` consuming them (decoding each event, nothing else), and missive's `streamMessage` (checking,
 * decoding and persisting every event: its journal event, task and artifact rows, group commit).
 * Measured per side: CPU of this process per event (process.cpuUsage, the peer excluded), events/s, and RSS growth.
 * A third run, missive's wire path alone (openStream: SSE parsing, checks, the SDK codec; no journal), splits the
 * cost between reading the wire and persisting it.
 * Targets (issue 23): CPU ≤ 3×, rate ≥ 0.3× the SDK's; every event persisted; RSS flat (no per-event accumulation).
 * Then whole processes (issue 38): `missive stream` of WHOLE_EVENTS events against a one-shot SDK script consuming the
 * same stream (bench/_sdk-stream-one-shot.ts), each a child of bash measured by its `times` (user + system CPU of the
 * whole child, start-up and exit included), alternated; target ≤ 2×.
 *
 *   npm run bench -- stream [EVENTS] [ROUNDS] [WHOLE_EVENTS]
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { createCore } from '../electron/core/context.js';
import { createMemorySecretStore } from '../electron/core/auth/secret-store.js';
import { addAgent } from '../electron/core/agents/registry.js';
import { loadCard } from '../electron/core/agents/discovery.js';
import { streamMessage } from '../electron/core/messaging/stream.js';
import { connect } from '../electron/core/agents/connection.js';
import { openStream } from '../electron/core/a2a/sse.js';
import { closeSharedDispatcher } from '../electron/core/a2a/http.js';
import { DEFAULT_MAX_STREAM_EVENTS } from '../electron/core/config/limits.js';
import { median, ratioLine } from './_stats.js';
import { sqliteStore } from '../test/support/sqlite-store.js';

const EVENTS = Number(process.argv[2] ?? 100_000);
const ROUNDS = Number(process.argv[3] ?? 3);
const WHOLE_EVENTS = Number(process.argv[4] ?? 20_000);
const WHOLE_ROUNDS = 5;
const here = fileURLToPath(new URL('.', import.meta.url));

interface Run {
  cpuMs: number;
  wallMs: number;
  events: number;
  rssGrowthMb: number;
}

/** Runs `consume`, which calls `tick()` per event; samples RSS every 1,000 events. */
async function measured(consume: (tick: () => void) => Promise<void>): Promise<Run> {
  globalThis.gc?.();
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  let events = 0;
  const tick = () => {
    if (++events % 1000 === 0) peak = Math.max(peak, process.memoryUsage().rss);
  };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await consume(tick);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs, events, rssGrowthMb: (peak - rss0) / 1024 / 1024 };
}

/** A peer process answering every stream with `events` events, and its base URL. */
async function startPeer(events: number): Promise<{ peer: ChildProcess; baseUrl: string }> {
  const peer = spawn(process.execPath, [join(here, '_stream-peer.js'), String(events)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const baseUrl = await new Promise<string>((resolve) => createInterface({ input: peer.stdout! }).once('line', resolve));
  return { peer, baseUrl };
}

const run = promisify(execFile);

/** User + system CPU of one child process, whole (bash's `times`: its children's), in ms; `check` reads its stdout. */
async function wholeProcessCpu(args: string[], env: NodeJS.ProcessEnv, check: (stdout: string) => void): Promise<number> {
  const { stdout } = await run('bash', ['-c', '"$@" > "$OUT"; times', 'bash', process.execPath, ...args], {
    env: { ...env, OUT: join(home, 'whole-process.out') },
    encoding: 'utf8',
  });
  check(readFileSync(join(home, 'whole-process.out'), 'utf8'));
  // `times` prints the shell's user and system time, then its children's: "0m1.234s 0m0.056s".
  const seconds = [
    ...stdout
      .trim()
      .split('\n')
      .at(-1)!
      .matchAll(/(\d+)m([\d.]+)s/g),
  ].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return (seconds[0]! + seconds[1]!) * 1000;
}

const { peer, baseUrl } = await startPeer(EVENTS);
const home = mkdtempSync(join(tmpdir(), 'missive-bench-stream-'));
// A stream longer than the default budget of events (`[qos] max_stream_events`, 200,000): the budget raised to fit.
if (EVENTS > DEFAULT_MAX_STREAM_EVENTS) {
  mkdirSync(join(home, 'config'), { recursive: true });
  writeFileSync(join(home, 'config/config.toml'), `[qos]\nmax_stream_events = ${EVENTS}\nmax_stream_bytes = ${EVENTS * 1024}\n`);
}
const core = createCore({ env: { MISSIVE_HOME: home, HOME: home }, cwd: home, secrets: createMemorySecretStore(), timeoutMs: 120_000 });
try {
  await addAgent(core, { alias: 'peer', baseUrl });
  await loadCard(core, 'peer');
  const client = await new ClientFactory().createFromUrl(baseUrl);

  const sdk = () =>
    measured(async (tick) => {
      const request = SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] } });
      for await (const _event of client.sendMessageStream(request)) tick();
    });
  const ours = () =>
    measured(async (tick) => {
      const result = await streamMessage(core, { agent: 'peer', text: 'go', cwd: home, onEvent: tick });
      if (result.events !== EVENTS) throw new Error(`missive saw ${result.events} of ${EVENTS} events`);
    });

  const conn = await connect(core, 'peer');
  const wire = () =>
    measured(async (tick) => {
      const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] };
      for await (const _record of openStream(conn.call, 'SendStreamingMessage', { message })) tick();
    });

  const runs = { sdk: [] as Run[], ours: [] as Run[], wire: [] as Run[] };
  await sdk();
  await ours();
  await wire();
  for (let round = 0; round < ROUNDS; round++) {
    runs.sdk.push(await sdk());
    runs.ours.push(await ours());
    runs.wire.push(await wire());
  }
  const stat = (rs: Run[], f: (r: Run) => number) => median(rs.map(f));
  const cpuPerEvent = (rs: Run[]) => stat(rs, (r) => (r.cpuMs * 1000) / r.events);
  const rate = (rs: Run[]) => stat(rs, (r) => r.events / (r.wallMs / 1000));
  console.log(`${EVENTS} events per run, ${ROUNDS} rounds after a warm-up, medians`);
  console.log(
    `SDK client: ${cpuPerEvent(runs.sdk).toFixed(1)} µs CPU/event, ${Math.round(rate(runs.sdk))} events/s, RSS +${stat(runs.sdk, (r) => r.rssGrowthMb).toFixed(1)} MB`,
  );
  console.log(
    `missive:    ${cpuPerEvent(runs.ours).toFixed(1)} µs CPU/event, ${Math.round(rate(runs.ours))} events/s, RSS +${stat(runs.ours, (r) => r.rssGrowthMb).toFixed(1)} MB`,
  );
  console.log(
    `missive wire path only (no journal): ${cpuPerEvent(runs.wire).toFixed(1)} µs CPU/event, ${Math.round(rate(runs.wire))} events/s, ratio ${(cpuPerEvent(runs.wire) / cpuPerEvent(runs.sdk)).toFixed(2)} CPU to the SDK's`,
  );
  console.log(ratioLine('CPU per event, missive / SDK', cpuPerEvent(runs.ours) / cpuPerEvent(runs.sdk), 3));
  console.log(ratioLine('events/s, missive / SDK', rate(runs.ours) / rate(runs.sdk), 0.3, false));
  // Each update is stored once, as its journal event (what `missive events list` shows).
  const persisted = (await sqliteStore(core)).db
    .prepare(`SELECT COUNT(*) AS n FROM events WHERE event_type IN ('a2a.stream.task', 'a2a.stream.status_update', 'a2a.stream.artifact_update')`)
    .get() as { n: number };
  const expected = EVENTS * (ROUNDS + 1);
  console.log(`persisted: ${persisted.n} of ${expected} stream events as journal events${persisted.n === expected ? '' : ' — SOME LOST'}`);

  // Whole processes: `missive stream` (start-up, card, stream, every event persisted, exit) against the SDK script.
  const whole = await startPeer(WHOLE_EVENTS);
  try {
    const env = { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH };
    await addAgent(core, { alias: 'whole', baseUrl: whole.baseUrl });
    await loadCard(core, 'whole');
    const cli = join(here, '../../bin/missive.js');
    const cpu = { sdk: [] as number[], missive: [] as number[] };
    for (let round = 0; round <= WHOLE_ROUNDS; round++) {
      const s = await wholeProcessCpu([join(here, '_sdk-stream-one-shot.js'), whole.baseUrl], env, (out) => {
        if (Number(out) !== WHOLE_EVENTS) throw new Error(`the SDK script read ${out.trim()} of ${WHOLE_EVENTS} events`);
      });
      const m = await wholeProcessCpu([cli, 'stream', 'whole', 'go', '--json'], env, (out) => {
        const events = (JSON.parse(out) as { data: { events: number } }).data.events;
        if (events !== WHOLE_EVENTS) throw new Error(`missive stream saw ${events} of ${WHOLE_EVENTS} events`);
      });
      if (round === 0) continue; // warm-up
      cpu.sdk.push(s);
      cpu.missive.push(m);
    }
    const [sdkMs, missiveMs] = [median(cpu.sdk), median(cpu.missive)];
    console.log(
      ratioLine(
        `whole process, ${WHOLE_EVENTS} events: missive stream ${missiveMs.toFixed(0)} ms CPU, one-shot SDK script ${sdkMs.toFixed(0)} ms CPU (medians of ${WHOLE_ROUNDS})`,
        missiveMs / sdkMs,
        2,
      ),
    );
  } finally {
    whole.peer.stdin!.end();
  }
} finally {
  core.close();
  await closeSharedDispatcher();
  peer.stdin!.end();
  rmSync(home, { recursive: true, force: true });
}
