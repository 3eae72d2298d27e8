#!/usr/bin/env node
/**
 * The `missive` CLI entry under plain Node (also run by the packaged app with ELECTRON_RUN_AS_NODE=1). No top-level
 * await: the bundle (build/bundle-cli.mjs) is CommonJS, which loads faster than ES modules.
 */
import { runCli } from './program.js';
import { createStdout } from './stdout.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** One line typed at the terminal (a confirmation): read from the keyboard when stdin is one, else the piped input's first line. */
async function readLine(): Promise<string> {
  if (!process.stdin.isTTY) return (await readStdin()).split('\n')[0] ?? '';
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, terminal: false });
  try {
    for await (const line of rl) return line;
    return '';
  } finally {
    rl.close();
  }
}

const stdout = createStdout();

void runCli(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  io: {
    stdout: (t) => stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    get isTTY() {
      return stdout.isTTY;
    },
  },
  stdin: readStdin,
  readLine,
}).then((code) => {
  process.exitCode = code;
});
