/**
 * The memory one amplifying answer costs (issue 32, finding 14): a loopback peer answers SendMessage with a task holding
 * ARTIFACTS one-part artifacts (150,000: about 7 MB). Each case runs `missive send` in a child process of its own, so
 * its peak RSS is its own: with `[qos] max_answer_objects` at its default (the answer is refused before it is parsed)
 * and raised past the answer (read, checked and journaled, as before the limit). Printed: the answer's size, each
 * child's peak RSS growth over its RSS before the send, and that growth as a multiple of the answer's size.
 * Target: refused, the growth is at most a quarter of what reading it costs (what is left: the body as received and its
 * text; nothing is built of it).
 *
 *   npm run bench -- answer-memory [ARTIFACTS]
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ratioLine } from './_stats.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const MB = 1_000_000;

/** The child: one send against the peer at argv[3], from the MISSIVE_HOME it was given; prints its RSS figures as JSON. */
async function child(baseUrl: string): Promise<void> {
  const { createCore } = await import('../electron/core/context.js');
  const { createMemorySecretStore } = await import('../electron/core/auth/secret-store.js');
  const { addAgent } = await import('../electron/core/agents/registry.js');
  const { loadCard } = await import('../electron/core/agents/discovery.js');
  const { sendMessage } = await import('../electron/core/messaging/send.js');
  const { closeSharedDispatcher } = await import('../electron/core/a2a/http.js');
  const home = process.env.MISSIVE_HOME!;
  const core = createCore({ env: { MISSIVE_HOME: home, HOME: home }, cwd: home, secrets: createMemorySecretStore(), timeoutMs: 120_000 });
  let outcome = 'taken';
  try {
    await addAgent(core, { alias: 'peer', baseUrl });
    await loadCard(core, 'peer');
    globalThis.gc?.();
    const before = process.memoryUsage().rss;
    try {
      await sendMessage(core, { agent: 'peer', text: 'go', cwd: home });
    } catch (error) {
      outcome = `refused (${(error as { code?: string }).code ?? String(error)})`;
    }
    // The process's peak RSS (an upper bound: a higher peak before the send would count too) over its RSS before.
    process.stdout.write(`${JSON.stringify({ outcome, growth: Math.max(0, process.resourceUsage().maxRSS * 1024 - before) })}\n`);
  } finally {
    core.close();
    await closeSharedDispatcher();
  }
}

async function parent(artifacts: number): Promise<void> {
  const items = new Array<string>(artifacts);
  for (let i = 0; i < artifacts; i++) items[i] = `{"artifactId":"a${i}","parts":[{"text":"x"}]}`;
  const answer = `{"task":{"id":"t-many","contextId":"c-many","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[${items.join(',')}]}}`;
  const server = createServer((req, res) => {
    req.resume();
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (req.url === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          name: 'many',
          description: 'answers with many artifacts',
          version: '1.0.0',
          supportedInterfaces: [{ url: `${url}/a2a`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
          capabilities: { streaming: false },
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [{ id: 'many', name: 'Many', tags: ['bench'] }],
        }),
      );
    } else res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const run = (config: string | null) =>
    new Promise<{ outcome: string; growth: number }>((resolve, reject) => {
      const home = mkdtempSync(join(tmpdir(), 'missive-bench-answer-'));
      if (config) {
        mkdirSync(join(home, 'config'), { recursive: true });
        writeFileSync(join(home, 'config', 'config.toml'), `schema_version = "missive.config.v1"\n[qos]\n${config}\n`);
      }
      const proc = spawn(process.execPath, ['--expose-gc', join(here, 'answer-memory.js'), 'child', baseUrl], {
        env: { ...process.env, MISSIVE_HOME: home, HOME: home },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      proc.stdout.on('data', (d) => (out += d));
      proc.once('exit', (code) => {
        rmSync(home, { recursive: true, force: true });
        if (code !== 0) reject(new Error(`the child exited with ${code}`));
        else resolve(JSON.parse(out.trim().split('\n').at(-1)!));
      });
    });
  try {
    const bytes = Buffer.byteLength(answer);
    console.log(`answer: ${artifacts} one-part artifacts, ${(bytes / MB).toFixed(1)} MB`);
    const limited = await run(null);
    const raised = await run(`max_answer_objects = ${artifacts * 4}`);
    for (const [name, r] of [
      ['default [qos] max_answer_objects', limited],
      ['max_answer_objects raised past it', raised],
    ] as const) {
      console.log(`${name}: ${r.outcome}, peak RSS +${(r.growth / MB).toFixed(0)} MB (${(r.growth / bytes).toFixed(1)}× the answer)`);
    }
    console.log(ratioLine('peak RSS growth, refused / taken', limited.growth / raised.growth, 0.25));
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

if (process.argv[2] === 'child') await child(process.argv[3]!);
else await parent(Number(process.argv[2] ?? 150_000));
