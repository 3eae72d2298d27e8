/**
 * SendMessage cost against the official SDK client, to a loopback echo agent (the SDK's own server) started here.
 *
 * 1. Whole process: `missive send AGENT ping` (card cached, request and answer persisted) against a one-shot SDK
 *    script that fetches the card and sends (bench/_sdk-one-shot.ts), paired, median of ROUNDS. Target ≤ 1.0×. The
 *    same send without the CLI's code cache (MISSIVE_NO_COMPILE_CACHE) runs beside them, for comparison.
 * 2. In process: SENDS sequential sends over keep-alive, missive's `sendMessage` (negotiation, auth, rows, journal
 *    events) against the SDK client's `sendMessage`, on HTTP+JSON and on JSON-RPC. Target ≤ 1.1×.
 *
 *   npm run bench -- send [SENDS] [ROUNDS]
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { createCore } from '../electron/core/context.js';
import { createMemorySecretStore } from '../electron/core/auth/secret-store.js';
import { addAgent } from '../electron/core/agents/registry.js';
import { loadCard } from '../electron/core/agents/discovery.js';
import { sendMessage } from '../electron/core/messaging/send.js';
import { closeSharedDispatcher } from '../electron/core/a2a/http.js';
import { startEmbeddedAgent } from '../electron/core/demo/embedded-agent.js';
import type { Binding } from '../electron/core/config/schema.js';
import { median, ratioLine } from './_stats.js';
import { sqliteStore } from '../test/support/sqlite-store.js';

const SENDS = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 9);
const root = fileURLToPath(new URL('../../', import.meta.url));

const agent = await startEmbeddedAgent({ behaviour: 'echo' });
const home = mkdtempSync(join(tmpdir(), 'missive-bench-send-'));
const env = { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH };
const core = createCore({ env, cwd: home, secrets: createMemorySecretStore(), timeoutMs: 30_000 });
const BINDINGS: Array<{ binding: Binding; sdk: string }> = [
  { binding: 'http+json', sdk: 'HTTP+JSON' },
  { binding: 'json-rpc', sdk: 'JSONRPC' },
];

const run = promisify(execFile);

/** Wall time of one process, in ms (the agent lives in this process, so the child is awaited, not waited for). */
async function wholeProcess(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<number> {
  const t0 = performance.now();
  const { stdout } = await run(process.execPath, args, { cwd: home, env: { ...env, ...extraEnv }, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (!stdout.includes('ping')) throw new Error(`${args.join(' ')} printed ${stdout}`);
  return ms;
}

try {
  await addAgent(core, { alias: 'echo', baseUrl: agent.baseUrl });
  await loadCard(core, 'echo');

  // 1. Whole process.
  const sdkScript = join(root, 'dist/bench/_sdk-one-shot.js');
  const cli = join(root, 'bin/missive.js');
  const processes = { sdk: [] as number[], missive: [] as number[], uncached: [] as number[] };
  for (let round = 0; round <= ROUNDS; round++) {
    const s = await wholeProcess([sdkScript, agent.baseUrl, 'HTTP+JSON']);
    const m = await wholeProcess([cli, 'send', 'echo', 'ping', '--binding', 'http+json']);
    // The same send compiled without the CLI's code cache (bin/compile-cache.js), for comparison.
    const u = await wholeProcess([cli, 'send', 'echo', 'ping', '--binding', 'http+json'], { MISSIVE_NO_COMPILE_CACHE: '1' });
    if (round === 0) continue; // warm-up (it writes the code cache)
    processes.sdk.push(s);
    processes.missive.push(m);
    processes.uncached.push(u);
  }
  const [sdkMs, missiveMs, uncachedMs] = [median(processes.sdk), median(processes.missive), median(processes.uncached)];
  console.log(ratioLine(`whole process: missive send ${missiveMs.toFixed(1)} ms, one-shot SDK script ${sdkMs.toFixed(1)} ms`, missiveMs / sdkMs, 1.0));
  console.log(`  without the code cache: missive send ${uncachedMs.toFixed(1)} ms, ratio ${(uncachedMs / sdkMs).toFixed(2)} (for comparison)`);

  // 2. In process, sequential sends over keep-alive.
  for (const { binding, sdk } of BINDINGS) {
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [sdk] }));
    const client = await factory.createFromUrl(agent.baseUrl);
    const bare = async (n: number) => {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) {
        await client.sendMessage(SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'ping' }] } }));
      }
      return performance.now() - t0;
    };
    const ours = async (n: number) => {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await sendMessage(core, { agent: 'echo', text: 'ping', binding, cwd: home });
      return performance.now() - t0;
    };
    await bare(200);
    await ours(200);
    const times = { bare: [] as number[], ours: [] as number[] };
    for (let round = 0; round < 3; round++) {
      times.bare.push(await bare(SENDS));
      times.ours.push(await ours(SENDS));
    }
    const [b, m] = [median(times.bare), median(times.ours)];
    console.log(
      ratioLine(
        `${SENDS} sequential sends over ${binding}: missive ${(m / SENDS).toFixed(3)} ms/send, SDK client ${(b / SENDS).toFixed(3)} ms/send`,
        m / b,
        1.1,
      ),
    );
  }
  const rows = (await sqliteStore(core)).db.prepare(`SELECT COUNT(*) AS n FROM messages`).get() as { n: number };
  console.log(`persisted: ${rows.n} message rows (request + answer per send)`);
} finally {
  core.close();
  await closeSharedDispatcher();
  await agent.close();
  rmSync(home, { recursive: true, force: true });
}
