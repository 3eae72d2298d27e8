/** The `missive` bin under plain Node: proves the CLI runs without Electron, and that the demo works end to end. */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const bin = join(root, 'bin/missive.js');

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/electron/cli/index.js'))) await run('npm', ['run', 'build'], { cwd: root });
}, 120_000);

async function missive(args: string[], env: NodeJS.ProcessEnv) {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH, ...env }, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('missive bin (plain Node)', () => {
  it('prints help and the version, and exits 64 on a usage error', async () => {
    const home = mkdtempSync(join(tmpdir(), 'missive-bin-'));
    try {
      const help = await missive(['--help'], { MISSIVE_HOME: home, HOME: home });
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/agent\s+register, inspect and manage A2A agents/);
      expect((await missive(['--version'], { HOME: home })).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
      const bad = await missive(['agent', 'add'], { MISSIVE_HOME: home, HOME: home });
      expect(bad.code).toBe(64);
      expect(bad.stderr).toMatch(/missing required argument/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('runs the demo: embedded SDK agents registered, inspected on every binding, streamed to, and a full round', async () => {
    const home = mkdtempSync(join(tmpdir(), 'missive-demo-test-'));
    try {
      const res = await missive(['demo', '--json'], { MISSIVE_HOME: home, HOME: home });
      expect(res.code).toBe(0);
      const env = JSON.parse(res.stdout);
      expect(env.kind).toBe('demo_result');
      const inspected = env.data.steps.filter((s: { step: string }) => s.step === 'agent.inspected');
      expect(inspected.map((s: { detail: { selected_interface: { binding: string } } }) => s.detail.selected_interface.binding)).toEqual([
        ...['http+json', 'json-rpc', 'grpc'], // demo-echo also serves gRPC
        ...Array(4).fill(['http+json', 'json-rpc']).flat(),
      ]);
      const steps = env.data.steps.map((s: { step: string }) => s.step);
      expect(steps.slice(-6)).toEqual(['stream', 'round.bcast', 'round.barrier', 'round.gather', 'round.reduce', 'round.done']);
      const reduced = env.data.steps.find((s: { step: string }) => s.step === 'round.reduce').detail.result;
      expect(reduced.reduced_text).toMatch(/^Reduced 4 input\(s\):/);
      expect(env.data.steps.at(-1).detail).toMatchObject({ status: 'succeeded', exit_code: 0 });
      const list = JSON.parse((await missive(['agent', 'list', '--json'], { MISSIVE_HOME: home, HOME: home })).stdout);
      expect(list.data.agents.map((a: { alias: string }) => a.alias)).toEqual(['demo-echo', 'demo-reducer', 'demo-slow', 'demo-stream', 'demo-tasks']);
      const group = JSON.parse((await missive(['group', 'show', 'demo', '--json'], { MISSIVE_HOME: home, HOME: home })).stdout);
      expect(group.data.members.map((m: { agent_alias: string; rank: number }) => `${m.rank}:${m.agent_alias}`)).toEqual([
        '0:demo-echo',
        '1:demo-tasks',
        '2:demo-stream',
        '3:demo-slow',
      ]);
      expect(list.data.agents.every((a: { card: { cached: boolean } }) => a.card.cached)).toBe(true);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('explains why `missive ui` cannot open here (no display or no Electron binary)', async () => {
    const home = mkdtempSync(join(tmpdir(), 'missive-ui-test-'));
    try {
      const res = await missive(['ui', '--json'], { MISSIVE_HOME: home, HOME: home, DISPLAY: '' });
      expect(res.code).toBe(69);
      expect(JSON.parse(res.stderr).data).toMatchObject({ code: 'missive::io::ui_unavailable' });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
