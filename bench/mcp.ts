/**
 * send_message through MCP against the in-process send it wraps, to the same loopback echo agent (the SDK's own
 * server, without streaming so both sides make the same unary SendMessage), which runs in a process of its own
 * (bench/_echo-agent.ts): both sides reach it across a process boundary, as they would a real agent.
 *
 * Baseline: the core's `sendMessage` in this process (what `missive send` runs: negotiation from the cached card,
 * auth, the request and answer rows, the journal events). Measured: one `send_message` call of the official MCP SDK
 * client to one `missive mcp serve` child kept open over stdio (JSON-RPC both ways, zod validation, the same send in
 * the child, the `missive.mcp.call` journal row, redaction and scrubbing of the result). One of each, alternately, SENDS
 * times after a warm-up; the ratio of the medians. Target ≤ 1.3×. An MCP `ping` over the same connection is timed
 * too: the cost of a round trip that does nothing.
 *
 *   npm run bench -- mcp [SENDS]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createCore } from '../electron/core/context.js';
import { createMemorySecretStore } from '../electron/core/auth/secret-store.js';
import { addAgent } from '../electron/core/agents/registry.js';
import { loadCard } from '../electron/core/agents/discovery.js';
import { sendMessage } from '../electron/core/messaging/send.js';
import { closeSharedDispatcher } from '../electron/core/a2a/http.js';
import { median, quantile, ratioLine } from './_stats.js';
import { sqliteStore } from '../test/support/sqlite-store.js';

const SENDS = Number(process.argv[2] ?? 300);
const WARM_UP = 20;
const TARGET = 1.3;
const root = fileURLToPath(new URL('../../', import.meta.url));

const peer = spawn(process.execPath, [join(root, 'dist/bench/_echo-agent.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
const baseUrl = await new Promise<string>((resolve) => createInterface({ input: peer.stdout }).once('line', resolve));
const home = mkdtempSync(join(tmpdir(), 'missive-bench-mcp-'));
const env = { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH ?? '' };
const core = createCore({ env, cwd: home, secrets: createMemorySecretStore(), timeoutMs: 30_000 });
const client = new Client({ name: 'missive-bench', version: '1.0.0' });

const ms = (xs: number[]) => `${median(xs).toFixed(3)} ms (p90 ${quantile(xs, 0.9).toFixed(3)})`;

async function timed(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

try {
  await addAgent(core, { alias: 'echo', baseUrl });
  await loadCard(core, 'echo');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(root, 'bin/missive.js'), 'mcp', 'serve'],
    cwd: home,
    env,
    stderr: 'inherit',
  });
  await client.connect(transport);

  const direct = () => timed(async () => void (await sendMessage(core, { agent: 'echo', text: 'ping', cwd: home })));
  const viaMcp = () =>
    timed(async () => {
      const result = await client.callTool({ name: 'send_message', arguments: { agent: 'echo', text: 'ping' } });
      if (result.isError) throw new Error(`send_message failed: ${JSON.stringify(result.content)}`);
    });
  const ping = () => timed(async () => void (await client.ping()));

  for (let i = 0; i < WARM_UP; i++) {
    await direct();
    await viaMcp();
    await ping();
  }
  const times = { direct: [] as number[], mcp: [] as number[], ping: [] as number[] };
  for (let i = 0; i < SENDS; i++) {
    times.direct.push(await direct());
    times.mcp.push(await viaMcp());
    times.ping.push(await ping());
  }
  console.log(`in-process send: ${ms(times.direct)}`);
  console.log(`send_message over MCP (stdio): ${ms(times.mcp)}`);
  console.log(`ping over MCP (stdio), the round trip alone: ${ms(times.ping)}`);
  // The server's own time in send_message (the mcp.call row's duration_ms: validation, the send, scrubbing; whole ms).
  const rows = (await sqliteStore(core)).db
    .prepare(
      `SELECT json_extract(payload_json, '$.duration_ms') AS ms FROM events WHERE event_type = 'missive.mcp.call' AND json_extract(payload_json, '$.tool') = 'send_message'`,
    )
    .all() as Array<{ ms: number }>;
  console.log(`send_message's run in the server (mcp.call duration_ms, whole ms): median ${median(rows.map((r) => r.ms))} ms over ${rows.length} calls`);
  console.log(
    ratioLine(
      `${SENDS} sends each, alternately: send_message over MCP ${median(times.mcp).toFixed(3)} ms, in-process send ${median(times.direct).toFixed(3)} ms`,
      median(times.mcp) / median(times.direct),
      TARGET,
    ),
  );
} finally {
  await client.close().catch(() => undefined);
  core.close();
  await closeSharedDispatcher();
  peer.stdin.end();
  rmSync(home, { recursive: true, force: true });
}
