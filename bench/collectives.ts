/**
 * bcast fan-out benchmark: missive's `bcast` (card cache, auth, request/response rows, journal events) against a bare
 * `Promise.all` of `@a2a-js/sdk` client `sendMessage` calls to the same loopback agents, in the same process and run.
 * Every agent answers after a fixed delay; both sides fan out to all members at once (missive: --max-concurrency N).
 * Prints the wall-time ratio (target ≤ 1.2) and missive's overhead per member. Nothing leaves 127.0.0.1.
 *
 *   npm run bench:collectives            # N = 100 and 500
 *   node dist/bench/collectives.js 50    # other sizes
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { createCore } from '../electron/core/context.js';
import { createMemorySecretStore } from '../electron/core/auth/secret-store.js';
import { addAgent } from '../electron/core/agents/registry.js';
import { loadCard } from '../electron/core/agents/discovery.js';
import { createGroup } from '../electron/core/collectives/groups.js';
import { bcast } from '../electron/core/collectives/bcast.js';
import { closeSharedDispatcher } from '../electron/core/a2a/http.js';
import { startEmbeddedAgent, type EmbeddedAgent } from '../electron/core/demo/embedded-agent.js';
import { median } from './_stats.js';

const DELAY_MS = 100;
const ROUNDS = 3;

async function measure(n: number) {
  const agents: EmbeddedAgent[] = [];
  for (let i = 0; i < n; i += 50)
    agents.push(...(await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => startEmbeddedAgent({ behaviour: 'echo', delayMs: DELAY_MS })))));
  const home = mkdtempSync(join(tmpdir(), 'missive-bench-'));
  const core = createCore({
    env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH },
    cwd: home,
    secrets: createMemorySecretStore(),
    timeoutMs: 60_000,
  });
  try {
    // Set-up, not timed: register, warm the card cache, create the group, build the SDK clients.
    for (const [i, a] of agents.entries()) await addAgent(core, { alias: `a${i}`, baseUrl: a.baseUrl });
    await Promise.all(agents.map((_, i) => loadCard(core, `a${i}`)));
    await createGroup(core, 'bench', { members: agents.map((_, i) => `a${i}`) });
    const factory = new ClientFactory();
    const clients = await Promise.all(agents.map((a) => factory.createFromUrl(a.baseUrl)));

    const bare = async () => {
      const t0 = performance.now();
      await Promise.all(
        clients.map((c) => c.sendMessage(SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'ping' }] } }))),
      );
      return performance.now() - t0;
    };
    const missive = async () => {
      const t0 = performance.now();
      const r = await bcast(core, { text: 'ping', cwd: home }, { group: 'bench', maxConcurrency: n });
      if (r.counts.succeeded !== n) throw new Error(`bcast: ${r.counts.succeeded} of ${n} succeeded`);
      return performance.now() - t0;
    };
    await bare();
    await missive();
    const times = { bare: [] as number[], missive: [] as number[] };
    for (let i = 0; i < ROUNDS; i++) {
      times.bare.push(await bare());
      times.missive.push(await missive());
    }
    const b = median(times.bare);
    const m = median(times.missive);
    return { n, bare_ms: Math.round(b), missive_ms: Math.round(m), ratio: m / b, overhead_ms_per_member: (m - b) / n };
  } finally {
    core.close();
    await closeSharedDispatcher();
    await Promise.all(agents.map((a) => a.close()));
    rmSync(home, { recursive: true, force: true });
  }
}

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((x) => x > 0);
for (const n of sizes.length ? sizes : [100, 500]) {
  const r = await measure(n);
  console.log(
    `bcast to ${String(r.n).padStart(3)} agents (${DELAY_MS} ms each): missive ${r.missive_ms} ms, bare SDK Promise.all ${r.bare_ms} ms, ` +
      `ratio ${r.ratio.toFixed(2)} (target ≤ 1.20), overhead ${r.overhead_ms_per_member.toFixed(3)} ms/member`,
  );
}
