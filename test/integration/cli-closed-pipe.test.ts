/**
 * `missive … | head`: when the reader of its output closes the pipe before missive has written it all, missive ends
 * quietly with the command's own exit code, not with Node's stack trace of an unhandled EPIPE. Through a shell pipe
 * into `head -c 1` (a long listing, so the reader is gone mid-output), and into a pipe closed before the first write,
 * in human and JSON output.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore } from '../../electron/core/context.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { addAgent } from '../../electron/core/agents/registry.js';

let home: string;
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'missive-closed-pipe-'));
  const core = createCore({ env: { MISSIVE_HOME: home, HOME: home }, cwd: home, secrets: createMemorySecretStore() });
  try {
    // A listing of about 300 KB: more than a pipe holds, so the rest is written after `head` has gone.
    for (let i = 0; i < 1500; i++) await addAgent(core, { alias: `agent-${i}`, baseUrl: `http://127.0.0.1:${10_000 + i}` });
  } finally {
    core.close();
  }
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const env = () => ({ MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH });

describe('a closed pipe on stdout', () => {
  it.each(['agent list', 'agent list --json'])('ends `missive %s | head -c 1` quietly, with exit 0', (command) => {
    const run = spawnSync('bash', ['-c', `node bin/missive.js ${command} | head -c 1 > /dev/null; echo "exit \${PIPESTATUS[0]}"`], {
      encoding: 'utf8',
      env: env(),
    });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('exit 0');
  });

  it('ends quietly when the pipe is closed before the first write', async () => {
    const child = spawn(process.execPath, ['bin/missive.js', 'agent', 'list', '--json'], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
