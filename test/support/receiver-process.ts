/** `missive webhook run --port 0` as a process of its own (a receiver of a pool, a receiver under a flood). */
import { expect } from 'vitest';
import type { Sandbox } from './cli.js';
import { spawnMissive, type MissiveProcess } from './missive-process.js';
import { eventually } from './waits.js';

export interface ReceiverProcess {
  process: MissiveProcess;
  /** http://127.0.0.1:<port> */
  base: string;
  /** The callback URL it printed. */
  url: string;
}

/**
 * Starts the receiver on the sandbox's store with `CB_TOKEN` as its bearer token; resolves once it printed where it
 * listens. `onStop` is handed what kills it (the test's cleanups).
 */
export async function startReceiverProcess(box: Sandbox, onStop: (kill: () => unknown) => void): Promise<ReceiverProcess> {
  const receiver = spawnMissive(['webhook', 'run', '--port', '0', '--auth-token-env', 'CB_TOKEN', '--ndjson'], box.env);
  onStop(() => receiver.kill());
  const listening = await eventually(
    'the receiver to print webhook_listening',
    () => {
      if (receiver.child.exitCode !== null) throw new Error(`webhook run exited early (${receiver.child.exitCode}): ${receiver.stderr()}`);
      return receiver.of('webhook_listening')[0];
    },
    20_000,
  );
  const { url, host, port } = listening.data as { url: string; host: string; port: number };
  expect(url).toBe(`http://${host}:${port}/a2a/push`);
  return { process: receiver, base: `http://${host}:${port}`, url };
}
