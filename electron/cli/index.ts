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
}).then((code) => {
  process.exitCode = code;
});
