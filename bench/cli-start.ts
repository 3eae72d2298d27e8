/**
 * CLI start-up: the wall time of whole `missive` processes against `node -e 0`, paired in the same run (each round
 * runs the baseline and every case once, in turn). Cases: `--version`; `agent list --json` with an empty registry and
 * with 1,000 agents. Each case runs twice: through `bin/missive.js` (the rolldown bundle, dist/cli) and through the
 * plain compiled modules (dist/electron/cli/index.js), so the gain of bundling over lazy loading alone shows, and the
 * bundle's `agent list` also without its code cache (MISSIVE_NO_COMPILE_CACHE), so what the cache saves shows.
 * Targets through bin/missive.js: `--version` ≤ 1.5× `node -e 0`, `agent list --json` ≤ 2× (issue 23). Nothing touches the
 * network.
 *
 *   npm run bench -- cli-start [ROUNDS]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCore } from '../electron/core/context.js';
import { createMemorySecretStore } from '../electron/core/auth/secret-store.js';
import { addAgent } from '../electron/core/agents/registry.js';
import { median, ratioLine } from './_stats.js';

const ROUNDS = Number(process.argv[2] ?? 15);
const root = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLE = join(root, 'bin/missive.js');
const MODULES = join(root, 'dist/electron/cli/index.js');

async function homeWith(agents: number): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), 'missive-bench-start-'));
  const core = createCore({ env: { MISSIVE_HOME: home, HOME: home }, cwd: home, secrets: createMemorySecretStore() });
  try {
    // One transaction for the set-up: each add nests in it.
    await (
      await core.storage()
    ).transaction(async () => {
      for (let i = 0; i < agents; i++) await addAgent(core, { alias: `agent-${i}`, baseUrl: `http://127.0.0.1:${10_000 + i}`, tags: ['bench'] });
    });
  } finally {
    core.close();
  }
  return home;
}

/** Wall time of one process, in ms; fails loudly if it does not exit 0. */
function timed(args: string[], home: string, env: NodeJS.ProcessEnv = {}): number {
  const t0 = performance.now();
  const res = spawnSync(process.execPath, args, { cwd: home, env: { PATH: process.env.PATH, HOME: home, MISSIVE_HOME: home, ...env }, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (res.status !== 0) throw new Error(`${args.join(' ')} exited ${res.status}: ${res.stderr}`);
  return ms;
}

const empty = await homeWith(0);
const full = await homeWith(1000);
try {
  const cases: Array<{ name: string; args: string[]; home: string; env?: NodeJS.ProcessEnv; target?: boolean }> = [];
  for (const [entry, label, env] of [
    [BUNDLE, 'bin (bundle)', {}],
    // The same bundle compiled without its code cache (bin/compile-cache.js): what the cache saves.
    [BUNDLE, 'bin (bundle), no code cache', { MISSIVE_NO_COMPILE_CACHE: '1' }],
    [MODULES, 'modules', {}],
  ] as const) {
    const target = label === 'bin (bundle)';
    if (entry !== BUNDLE || target) cases.push({ name: `--version, ${label}`, args: [entry, '--version'], home: empty, target });
    cases.push({ name: `agent list --json, empty, ${label}`, args: [entry, 'agent', 'list', '--json'], home: empty, env, target });
    cases.push({ name: `agent list --json, 1,000 agents, ${label}`, args: [entry, 'agent', 'list', '--json'], home: full, env, target });
  }
  const baseline: number[] = [];
  const times = cases.map(() => [] as number[]);
  // One warm-up round (page cache, first compile of the native addon, the code cache written), then the measured rounds.
  for (let round = 0; round <= ROUNDS; round++) {
    const b = timed(['-e', '0'], empty);
    const t = cases.map((c) => timed(c.args, c.home, c.env));
    if (round === 0) continue;
    baseline.push(b);
    t.forEach((ms, i) => times[i]!.push(ms));
  }
  const base = median(baseline);
  console.log(`node -e 0: ${base.toFixed(1)} ms (median of ${ROUNDS})`);
  cases.forEach((c, i) => {
    const ms = median(times[i]!);
    const line = `${c.name}: ${ms.toFixed(1)} ms`;
    const target = c.args.includes('--version') ? 1.5 : 2;
    console.log(c.target ? `${ratioLine(line, ms / base, target)}` : `${line}, ratio ${(ms / base).toFixed(2)} (for comparison)`);
  });
} finally {
  rmSync(empty, { recursive: true, force: true });
  rmSync(full, { recursive: true, force: true });
}
