/**
 * The CLI loads only the module of the command it runs (command-modules.ts) and ships as a rolldown bundle
 * (dist/cli): whatever is loaded, every command must still be reachable, with the same help and errors.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { COMMAND_MODULES, commandNameOf } from '../../electron/cli/command-modules.js';
import { sandbox, type Sandbox } from '../support/cli.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

let box: Sandbox | undefined;
afterEach(() => box?.dispose());

describe('CLI start-up', () => {
  it('finds the command after global options that take a value', () => {
    const valueFlags = new Set(['--config', '--profile', '--timeout']);
    expect(commandNameOf(['--timeout', '5s', '--profile', 'x', 'agent', 'list'], valueFlags)).toBe('agent');
    expect(commandNameOf(['--timeout=5s', '--json', 'events', 'list'], valueFlags)).toBe('events');
    expect(commandNameOf(['--json'], valueFlags)).toBeUndefined();
  });

  it('runs a command named after global options, and lists every command in --help', async () => {
    box = sandbox();
    const list = await box.run(['--timeout', '5s', '--profile', 'default', 'agent', 'list', '--json']);
    expect(list.code).toBe(0);
    expect(list.json().ok).toBe(true);
    const help = await box.run(['--help']);
    expect(help.code).toBe(0);
    for (const name of COMMAND_MODULES.flatMap((m) => m.names)) expect(help.stdout).toMatch(new RegExp(`^\\s+${name}\\b`, 'm'));
    const sub = await box.run(['group', '--help']);
    expect(sub.stdout).toMatch(/create/);
  });

  it('suggests the right command for a typo (exit 64)', async () => {
    box = sandbox();
    const typo = await box.run(['agnet', 'list']);
    expect(typo.code).toBe(64);
    expect(typo.stderr).toMatch(/unknown command 'agnet'/);
    expect(typo.stderr).toMatch(/agent/);
  });

  it('refuses a duration no timer can wait (exit 64)', async () => {
    box = sandbox();
    const res = await box.run(['--timeout', '99999999999999999999s', 'agent', 'list']);
    expect(res.code).toBe(64);
    expect(res.stderr).toMatch(/too long: at most 596h/);
  });

  it('ships the bundle that bin/missive.js runs, with the package version', async () => {
    expect(existsSync(join(root, 'dist/cli/missive.js'))).toBe(true);
    box = sandbox();
    const env = { PATH: process.env.PATH, HOME: box.home, MISSIVE_HOME: box.home };
    const version = (await run(process.execPath, [join(root, 'bin/missive.js'), '--version'], { env })).stdout.trim();
    expect(version).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
    const bundled = await run(process.execPath, [join(root, 'dist/cli/missive.js'), 'agent', 'list', '--json'], { env });
    expect(JSON.parse(bundled.stdout).ok).toBe(true);
    const bundledVersion = await run(process.execPath, [join(root, 'dist/cli/missive.js'), '--version'], { env });
    expect(bundledVersion.stdout.trim()).toBe(version);
  });
});
