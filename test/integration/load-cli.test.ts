/**
 * `missive load` as a user sees it, against real SDK agents on 127.0.0.1: the report (`--json`, the human table,
 * `--report FILE`), which model ran, the safety rules (confirmation, `--yes`, `--max-requests`), `--compare`, bad
 * flags, and credentials kept out of the output and the report. Runs are short and at modest rates.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, until, type Sandbox } from '../support/cli.js';
import { spawnMissive } from '../support/missive-process.js';
import { register, startAgents } from '../support/agents.js';
import { startSecuredAgent, type SecuredAgent } from '../support/secured-agent.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;

beforeAll(async () => {
  fleet = await startAgents({ echo: { behaviour: 'echo' } });
});
afterAll(() => fleet.close());
afterEach(() => box?.dispose());

/** The A2A calls the echo peer received (its card fetches are GETs). */
const a2aCalls = () => fleet.agents.echo!.requests.filter((r) => r.method === 'POST').length;

async function echoBox(): Promise<Sandbox> {
  box = sandbox();
  await register(box, { echo: fleet.agents.echo! });
  return box;
}

describe('missive load: the report', () => {
  it('--json: one load_report envelope naming the model, whose counts match what the peer received', async () => {
    await echoBox();
    const before = a2aCalls();
    const res = await box.run(['load', 'echo', 'hi', '--requests', '20', '--concurrency', '2', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const doc = res.json();
    expect(doc.kind).toBe('load_report');
    const report = doc.data;
    expect(report.model).toMatchObject({ kind: 'closed', concurrency: 2 });
    expect(report.model.description).toContain('closed-loop');
    expect(report.requests).toMatchObject({ sent: 20, answered: 20, failed: 0 });
    expect(a2aCalls() - before).toBe(20);
    expect(report.latency.answer.count).toBe(20);
    for (const key of ['p50', 'p90', 'p99', 'p999', 'max']) expect(typeof report.latency.answer[key]).toBe('number');
    expect(report.agents).toEqual(['echo']);
  });

  it('the human table says which model ran and shows the latency percentiles; open-loop names its rate', async () => {
    await echoBox();
    const res = await box.run(['load', 'echo', 'hi', '--rate', '20/s', '--requests', '10']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('open-loop at 20/s');
    expect(res.stdout).toMatch(/LATENCY \(ms\)\s+COUNT\s+P50\s+P90\s+P99\s+P99\.9\s+MAX/);
    expect(res.stdout).toMatch(/^answer\s+10\s/m);
    expect(res.stdout).toContain('10 sent, 10 answered');
    expect(res.stdout).toMatch(/achieved of 20\/s target/);
  });

  it('--ndjson: load_snapshot lines, then the load_report', async () => {
    await echoBox();
    const res = await box.run(['load', 'echo', 'hi', '--rate', '10/s', '--duration', '2s', '--ndjson']);
    expect(res.code, res.stderr).toBe(0);
    const kinds = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).kind);
    expect(kinds.at(-1)).toBe('load_report');
    expect(kinds.slice(0, -1).every((k) => k === 'load_snapshot')).toBe(true);
    expect(kinds.length).toBeGreaterThan(1);
  });

  it('on a terminal the live view is drawn in place (rate, in flight, p50, p99); not off one, nor with --json', async () => {
    await echoBox();
    const args = ['load', 'echo', 'hi', '--concurrency', '2', '--duration', '2s', '--yes'];
    const tty = await box.run(args, { tty: true });
    expect(tty.code, tty.stderr).toBe(0);
    expect(tty.stdout).toContain('\x1b[2Kload echo: closed-loop, 2 virtual users');
    expect(tty.stdout).toMatch(/in flight \d+/);
    expect(tty.stdout).toMatch(/rate [\d.]+\/s\s+p50 [\d.-]+ ms\s+p99 [\d.-]+ ms/);
    const quick = ['load', 'echo', 'hi', '--concurrency', '2', '--duration', '1100ms', '--yes'];
    const pipe = await box.run(quick);
    expect(pipe.stdout).not.toContain('\x1b[');
    expect(pipe.stdout).not.toContain('in flight');
    const json = await box.run([...quick, '--json'], { tty: true });
    expect(json.json().kind).toBe('load_report');
  });

  it('--report FILE writes the JSON report 0600; --compare reads it back and shows each change', async () => {
    await echoBox();
    const file = join(box.home, 'first.json');
    const first = await box.run(['load', 'echo', 'hi', '--requests', '10', '--report', file]);
    expect(first.code, first.stderr).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).data.requests.sent).toBe(10);
    const human = await box.run(['load', 'echo', 'hi', '--requests', '10', '--compare', file]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('compared with the run of');
    expect(human.stdout).toMatch(/answer p50\s+[\d.]+ → [\d.]+ ms\s+([+-]?[\d.]+%|=)/);
    const json = await box.run(['load', 'echo', 'hi', '--requests', '10', '--compare', file, '--json']);
    const comparison = json.json().data.comparison;
    expect(comparison.changes.map((c: { metric: string }) => c.metric)).toEqual(expect.arrayContaining(['answer p50', 'answer p99', 'achieved rate']));
  });

  it('--compare with a file that is not a load report is refused before anything is sent, saying what to pass', async () => {
    await echoBox();
    const other = join(box.home, 'other.json');
    writeFileSync(other, JSON.stringify({ schema_version: 'missive.output.v1', ok: true, kind: 'send_result', data: {} }));
    const notJson = join(box.home, 'notes.txt');
    writeFileSync(notJson, 'hello');
    const before = a2aCalls();
    for (const [file, says] of [
      [other, 'holds a send_result document, not a load report'],
      [notJson, 'is not JSON, so not a load report'],
    ] as const) {
      const res = await box.run(['load', 'echo', 'hi', '--requests', '5', '--compare', file]);
      expect(res.code).toBe(64);
      expect(res.stderr).toContain(says);
      expect(res.stderr).toContain('--report FILE');
    }
    expect(a2aCalls()).toBe(before);
  });
});

describe('missive load: Ctrl-C', () => {
  it('ends the run early with the report of what ran (the built CLI, --ndjson)', async () => {
    await echoBox();
    const run = spawnMissive(['load', 'echo', 'hi', '--concurrency', '2', '--duration', '60s', '--yes', '--ndjson'], box.env);
    try {
      await until('a load_snapshot line', () => run.of('load_snapshot').length > 0, 15_000);
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
      const report = run.of('load_report')[0]!.data;
      expect(report.requests.sent).toBeGreaterThan(0);
      expect(report.requests.answered).toBe(report.requests.sent);
      expect(report.duration_ms).toBeLessThan(60_000);
    } finally {
      run.kill();
    }
  });
});

describe('missive load: safety', () => {
  it('above 1,000 planned requests without a terminal and without --yes: refused naming --yes, and the peer receives nothing', async () => {
    await echoBox();
    const before = a2aCalls();
    const res = await box.run(['load', 'echo', 'hi', '--rate', '200/s', '--duration', '60s']);
    expect(res.code).toBe(64);
    expect(res.stderr).toContain('~12,000 requests to echo at http://127.0.0.1');
    expect(res.stderr).toContain('--yes');
    expect(a2aCalls()).toBe(before);
  });

  it('on a terminal the question is asked; anything but y sends nothing', async () => {
    await echoBox();
    const before = a2aCalls();
    const res = await box.run(['load', 'echo', 'hi', '--requests', '1500'], { tty: true, stdin: 'n\n' });
    expect(res.code).toBe(64);
    expect(res.stderr).toContain('about to send ~1,500 requests to echo at http://127.0.0.1');
    expect(res.stderr).toContain('continue? [y/N]');
    expect(res.stderr).toContain('nothing was sent');
    expect(a2aCalls()).toBe(before);
  });

  it('--yes lets a run above the threshold start', async () => {
    await echoBox();
    const before = a2aCalls();
    const res = await box.run(['load', 'echo', 'hi', '--requests', '1001', '--concurrency', '8', '--yes', '--json']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json().data.requests.sent).toBe(1001);
    expect(a2aCalls() - before).toBe(1001);
  });

  it('a plan above --max-requests is refused naming the flag, even with --yes', async () => {
    await echoBox();
    const before = a2aCalls();
    const res = await box.run(['load', 'echo', 'hi', '--requests', '50', '--max-requests', '40', '--yes']);
    expect(res.code).toBe(64);
    expect(res.stderr).toContain('above --max-requests 40');
    const big = await box.run(['load', 'echo', 'hi', '--rate', '1000/s', '--duration', '5m', '--yes']);
    expect(big.code).toBe(64);
    expect(big.stderr).toContain('300,000 requests, above --max-requests 100,000');
    expect(a2aCalls()).toBe(before);
  });

  it('a timed closed-loop run (its count not known ahead) asks for --yes, and stops at --max-requests', async () => {
    await echoBox();
    const refused = await box.run(['load', 'echo', 'hi', '--concurrency', '2', '--duration', '20s']);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('as many requests as it answers (at most 100,000) to echo');
    const before = a2aCalls();
    const capped = await box.run(['load', 'echo', 'hi', '--concurrency', '2', '--duration', '20s', '--max-requests', '30', '--json']);
    expect(capped.code, capped.stderr).toBe(0);
    expect(capped.json().data.requests.sent).toBe(30);
    expect(a2aCalls() - before).toBe(30);
  });
});

describe('missive load: bad flags exit 64 saying what to write', () => {
  it.each([
    [['--duration', '5s', '--requests', '5'], '--duration and --requests cannot be used together'],
    [['--rate', 'fast', '--duration', '5s'], 'Write the rate as requests per second or per minute'],
    [['--rate', '0/s', '--duration', '5s'], '--rate must be greater than zero'],
    [['--rate', '10/s'], 'Give exactly one of --duration D'],
    [['--rate', '10/s', '--concurrency', '2', '--requests', '5'], 'Use --rate R/s for open-loop'],
    [['--duration', 'soon'], 'Use an integer and a unit'],
    [['--requests', '0'], '--requests must be an integer from 1'],
  ])('load echo hi %j', async (flags, says) => {
    await echoBox();
    const res = await box.run(['load', 'echo', 'hi', ...flags]);
    expect(res.code).toBe(64);
    expect(res.stderr).toContain(says);
  });
});

describe('missive load: credentials', () => {
  let secured: SecuredAgent;
  const TOKEN = 'tok-load-9b1e77c3d2';
  beforeAll(async () => {
    secured = await startSecuredAgent({ token: TOKEN });
  });
  afterAll(() => secured.close());

  it('the bearer token reaches the agent but not the output or the report', async () => {
    box = sandbox({ LOAD_TOKEN: TOKEN });
    expect((await box.run(['auth', 'add', 'load-bearer', '--env', 'LOAD_TOKEN'])).code).toBe(0);
    expect((await box.run(['agent', 'add', 'secured', secured.baseUrl, '--auth-ref', 'load-bearer'])).code).toBe(0);
    const file = join(box.home, 'report.json');
    for (const mode of [[], ['--json'], ['--ndjson']]) {
      const res = await box.run(['load', 'secured', 'hi', '--requests', '5', '--report', file, ...mode]);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout + res.stderr).not.toContain(TOKEN);
      expect(readFileSync(file, 'utf8')).not.toContain(TOKEN);
    }
    expect(secured.requests.at(-1)!.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('a URL target with a password and a query key: neither in the heading, the live view or the report', async () => {
    box = sandbox();
    const url = fleet.agents.echo!.baseUrl.replace('http://', 'http://alice:pw-4d1c9e@') + '/?key=qk-77a0b3';
    for (const tty of [false, true]) {
      const res = await box.run(['load', url, 'hi', '--concurrency', '1', '--duration', '1100ms', '--yes'], { tty });
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain('load http://127.0.0.1');
      for (const secret of ['pw-4d1c9e', 'qk-77a0b3']) expect(res.stdout + res.stderr).not.toContain(secret);
    }
  });
});
