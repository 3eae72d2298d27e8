/**
 * The MCP conformance suite (@modelcontextprotocol/conformance, pinned) against `missive mcp serve --http`: every
 * server scenario that applies to a server with missive's tools passes, and the ones that need the suite's own fixture
 * tools, resources or prompts are listed in fixtures/mcp-conformance-expected-failures.yml. The list is kept honest
 * twice: the suite fails the run when a listed scenario passes (a stale entry, shown below with `ping`) or an unlisted
 * one fails, and this test checks that each listed scenario failed for the reason the file gives, not another.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { serveHttp, type HttpServer } from '../support/mcp-http.js';

const SUITE = 'node_modules/@modelcontextprotocol/conformance/dist/index.js';
const EXPECTED_FAILURES = 'fixtures/mcp-conformance-expected-failures.yml';

/** The scenarios that apply to missive's server: each must pass. */
const APPLIES = ['server-initialize', 'ping', 'logging-set-level', 'tools-list', 'resources-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'];

/** Why a listed scenario may fail (the file's comments, as patterns its failure messages must match). */
const REASONS: Array<[RegExp, RegExp]> = [
  [/^(prompts-|completion-complete$)/, /Method not found/],
  [/^(tools-call-|elicitation-)/, /no tool named "test_/],
  [/^json-schema-2020-12$/, /'json_schema_2020_12_tool' not found/],
  [/^resources-/, /unknown resource URI "test:\/\//],
  [/^server-sse-polling$/, /priming event|retry field|test_reconnection/],
];

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
let served: HttpServer;
let urlWithToken: string;

function runSuite(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SUITE, 'server', '--url', urlWithToken, ...args], { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}\n${stderr}` }),
    );
  });
}

const listed = (file: string): string[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => /^\s*-\s*([a-z0-9-]+)/.exec(line)?.[1])
    .filter((name): name is string => Boolean(name));

beforeAll(async () => {
  fleet = await startAgents({ echo: { behaviour: 'echo', streaming: false } });
  box = sandbox();
  await register(box, fleet.agents);
  served = await serveHttp(box);
  urlWithToken = `${served.url}?token=${encodeURIComponent(served.data.bearer!)}`;
}, 60_000);

afterAll(async () => {
  await served?.stop();
  await fleet?.close();
  box?.dispose();
});

describe('MCP conformance suite (server scenarios)', () => {
  it('passes every scenario that applies, and fails only the listed ones, each for its listed reason', async () => {
    const out = mkdtempSync(join(box.home, 'conformance-'));
    const { code, output } = await runSuite(['--suite', 'all', '--expected-failures', EXPECTED_FAILURES, '-o', out]);
    expect(output).toContain('Baseline check passed');
    expect(code, output).toBe(0);
    // What failed, as the suite's baseline check counts it: any check with FAILURE or WARNING.
    const failuresOf = (scenario: string) => {
      const dir = readdirSync(out).find((name) => name.startsWith(`server-${scenario}-2`));
      const checks = JSON.parse(readFileSync(join(out, dir!, 'checks.json'), 'utf8')) as Array<{ status: string; errorMessage?: string; description?: string }>;
      return checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    };
    const ran = [...output.matchAll(/^[✓✗] ([a-z0-9-]+): /gm)].map((m) => m[1]!);
    const expectedFailures = listed(EXPECTED_FAILURES);
    expect(ran.sort()).toEqual([...APPLIES, ...expectedFailures].sort());
    for (const scenario of APPLIES) expect(failuresOf(scenario), scenario).toEqual([]);
    for (const scenario of expectedFailures) {
      const reason = REASONS.find(([pattern]) => pattern.test(scenario))?.[1];
      expect(reason, `a reason for ${scenario}`).toBeDefined();
      const failures = failuresOf(scenario);
      expect(failures.length, scenario).toBeGreaterThan(0);
      for (const failure of failures) expect(failure.errorMessage ?? failure.description, scenario).toMatch(reason!);
    }
  }, 150_000);

  it('fails the run when the list names a scenario that passes (a stale entry)', async () => {
    const file = join(box.home, 'stale.yml');
    writeFileSync(file, 'server:\n  - ping\n');
    const { code, output } = await runSuite(['--scenario', 'ping', '--expected-failures', file]);
    expect(output).toMatch(/Stale baseline/);
    expect(code).toBe(1);
  }, 60_000);
});
