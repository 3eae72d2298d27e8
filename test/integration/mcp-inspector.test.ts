/**
 * MCP Inspector's CLI mode (@modelcontextprotocol/inspector-cli, pinned) against `missive mcp serve`, as a developer
 * would check a server by hand: over stdio (the Inspector launches missive) it lists the tools and calls list_agents;
 * over Streamable HTTP, with the token as an `Authorization` header, it calls send_message to an echo agent. The
 * Inspector prints each result as JSON on stdout.
 *
 * Inspector CLI 1.0.3 looks for its own package.json at `../package.json` relative to the current directory (not to
 * its module), so it runs from its build directory here, and missive is named by absolute paths.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { serveHttp } from '../support/mcp-http.js';

const INSPECTOR_DIR = resolve('node_modules/@modelcontextprotocol/inspector-cli/build');
const MISSIVE = [process.execPath, resolve('bin/missive.js')];

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;

function inspector(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['cli.js', '--cli', ...args],
      { cwd: INSPECTOR_DIR, env: { ...box.env }, timeout: 60_000, maxBuffer: 8 * 1024 * 1024 },
      (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  fleet = await startAgents({ echo: { behaviour: 'echo', streaming: false } });
  box = sandbox();
  await register(box, fleet.agents);
}, 60_000);

afterAll(async () => {
  await fleet?.close();
  box?.dispose();
});

describe('MCP Inspector CLI against missive mcp serve', () => {
  it('lists the tools over stdio, each with a description and an input schema', async () => {
    const run = await inspector([...MISSIVE, 'mcp', 'serve', '--method', 'tools/list']);
    expect(run.code, run.stderr).toBe(0);
    const tools = JSON.parse(run.stdout).tools as Array<{ name: string; description: string; inputSchema: { type: string } }>;
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['list_agents', 'send_message', 'wait_task', 'bcast', 'search_journal']));
    for (const tool of tools) expect(tool, tool.name).toMatchObject({ description: expect.any(String), inputSchema: { type: 'object' } });
  }, 60_000);

  it('calls list_agents over stdio', async () => {
    const run = await inspector([...MISSIVE, 'mcp', 'serve', '--method', 'tools/call', '--tool-name', 'list_agents']);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.agents.map((a: { alias: string }) => a.alias)).toEqual(['echo']);
  }, 60_000);

  it('calls send_message over Streamable HTTP with the token as a header', async () => {
    const served = await serveHttp(box);
    try {
      const run = await inspector([
        served.url,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${served.data.bearer}`,
        '--method',
        'tools/call',
        '--tool-name',
        'send_message',
        '--tool-arg',
        'agent=echo',
        'text=from the inspector',
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).content).toEqual([{ type: 'text', text: 'echo: from the inspector' }]);
    } finally {
      await served.stop();
    }
  }, 60_000);
});
