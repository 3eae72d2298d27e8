/**
 * The CLI's help and small daily-use rough edges, through the real CLI: every `--help` screen (no literal `\n`, each
 * default printed once, required options marked), suggestions on one line, bare `missive`, `--version --json`,
 * `history show` by a unique prefix, and `group show` naming only documented routing policies.
 */
import { tmpdir } from 'node:os';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../electron/cli/program.js';
import { ROUTE_POLICIES } from '../../electron/core/collectives/route.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { startAgents } from '../support/agents.js';

let box: Sandbox;
beforeEach(() => (box = sandbox()));
afterEach(() => box.dispose());

/** One option or argument of a help screen: its first line and its wrapped continuation lines, joined. */
function helpEntries(text: string): string[] {
  const entries: string[] = [];
  let section = false;
  for (const line of text.split('\n')) {
    if (/^(Options|Arguments|Commands):$/.test(line)) section = true;
    else if (/^\S/.test(line)) section = false;
    else if (section && /^ {2}\S/.test(line)) entries.push(line.trim());
    else if (section && /^ {3,}\S/.test(line) && entries.length) entries[entries.length - 1] += ` ${line.trim()}`;
  }
  return entries;
}

/** Every visible command path of the CLI, from the program as `missive --help` builds it. */
async function commandPaths(): Promise<string[][]> {
  const program = await buildProgram({ env: {}, cwd: tmpdir(), io: { stdout: () => undefined, stderr: () => undefined, isTTY: false } }, () => undefined, [
    'help',
  ]);
  const paths: string[][] = [];
  const visit = (cmd: Command, path: string[]) => {
    paths.push(path);
    for (const sub of cmd.createHelp().visibleCommands(cmd)) if (sub.name() !== 'help') visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return paths;
}

describe('--help at every level', () => {
  let screens: Array<{ path: string[]; text: string }> = [];
  let mandatory: Array<{ path: string[]; flag: string }> = [];
  beforeAll(async () => {
    const helpBox = sandbox();
    try {
      for (const path of await commandPaths()) {
        const res = await helpBox.run([...path, '--help']);
        expect(res.code, `missive ${path.join(' ')} --help`).toBe(0);
        screens.push({ path, text: res.stdout });
      }
    } finally {
      helpBox.dispose();
    }
    const program = await buildProgram({ env: {}, cwd: tmpdir(), io: { stdout: () => undefined, stderr: () => undefined, isTTY: false } }, () => undefined, [
      'help',
    ]);
    const visit = (cmd: Command, path: string[]) => {
      for (const o of cmd.options) if (o.mandatory) mandatory.push({ path, flag: o.long! });
      for (const sub of cmd.commands) visit(sub, [...path, sub.name()]);
    };
    visit(program, []);
  });
  afterAll(() => {
    screens = [];
    mandatory = [];
  });

  it('walks every command', () => {
    expect(screens.length).toBeGreaterThan(60);
    expect(mandatory.length).toBeGreaterThan(5);
  });

  it('never shows a literal \\n', () => {
    for (const { path, text } of screens) expect(text, `missive ${path.join(' ')} --help`).not.toMatch(/\\n/);
  });

  it('prints each default once, and no empty list as a default', () => {
    for (const { path, text } of screens) {
      for (const entry of helpEntries(text)) {
        expect(entry.match(/\bdefault\b/gi)?.length ?? 0, `missive ${path.join(' ')}: ${entry}`).toBeLessThanOrEqual(1);
        expect(entry, `missive ${path.join(' ')}: ${entry}`).not.toContain('(default: [])');
      }
    }
    const history = screens.find((s) => s.path.join(' ') === 'history list')!;
    expect(helpEntries(history.text).find((e) => e.startsWith('--limit'))).toMatch(/\(default: 50\)/);
  });

  it('marks every required option', () => {
    for (const { path, flag } of mandatory) {
      const screen = screens.find((s) => s.path.join(' ') === path.join(' '));
      expect(screen, `missive ${path.join(' ')}`).toBeDefined();
      const entry = helpEntries(screen!.text).find((e) => e.startsWith(flag) || e.includes(`, ${flag}`));
      expect(entry, `missive ${path.join(' ')} ${flag}`).toMatch(/\(required\)/);
    }
    const save = screens.find((s) => s.path.join(' ') === 'task artifact save')!;
    expect(helpEntries(save.text).find((e) => e.startsWith('--output '))).toMatch(/\(required\)/);
  });
});

describe('the rough edges', () => {
  it('a suggestion for a mistyped command or option is on its own line, never a literal \\n', async () => {
    for (const [args, suggestion] of [
      [['agnt'], 'Did you mean agent?'],
      [['agent', 'lst'], 'Did you mean list?'],
      [['history', 'list', '--limt', '3'], 'Did you mean --limit?'],
    ] as const) {
      const res = await box.run([...args]);
      expect(res.code).toBe(64);
      expect(res.stderr).not.toContain('\\n');
      expect(res.stderr).toContain(suggestion);
    }
    const json = await box.run(['agnt', '--json']);
    expect(json.code).toBe(64);
    const error = JSON.parse(json.stderr).data;
    expect(error.message).not.toContain('\n');
    expect(error.help).toContain('Did you mean agent?');
  });

  it('bare missive prints the help on stdout and exits 0', async () => {
    const res = await box.run([]);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Usage: missive /);
    expect(res.stdout).toContain('Commands:');
    expect(res.stderr).toBe('');
  });

  it('--version prints the version; with --json a missive.output.v1 envelope', async () => {
    const plain = await box.run(['--version']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
    for (const args of [
      ['--version', '--json'],
      ['--json', '-V'],
    ]) {
      const res = await box.run(args);
      expect(res.code).toBe(0);
      expect(res.json()).toMatchObject({ schema_version: 'missive.output.v1', ok: true, kind: 'version', data: { version: plain.stdout.trim() } });
      expect(res.json().data.node).toBe(process.versions.node);
    }
    const nd = await box.run(['--version', '--ndjson']);
    expect(JSON.parse(nd.stdout)).toMatchObject({ kind: 'version', sequence: 0 });
  });

  it('group create refuses an undocumented routing policy, and group show names only documented ones', async () => {
    const fleet = await startAgents({ echo: { behaviour: 'echo' } });
    try {
      expect((await box.run(['agent', 'add', 'echo', fleet.agents.echo!.baseUrl])).code).toBe(0);
      const bad = await box.run(['group', 'create', 'g', '--member', 'echo', '--routing-policy', 'direct']);
      expect(bad.code).toBe(64);
      expect(bad.stderr).toMatch(/first, round-robin, capability-match|"first", "round-robin", "capability-match"/);
      expect((await box.run(['group', 'create', 'g', '--member', 'echo'])).code).toBe(0);
      const shown = await box.run(['group', 'show', 'g', '--json']);
      expect(ROUTE_POLICIES as readonly string[]).toContain(shown.json().data.routing_policy);
      expect(shown.json().data).toMatchObject({ routing_policy: 'first', routing_policy_source: 'default' });
      const human = await box.run(['group', 'show', 'g']);
      expect(human.stdout).toMatch(/^policy\s+first \(default\)$/m);
      expect(human.stdout).not.toContain('direct');
      expect((await box.run(['group', 'list'])).stdout).not.toContain('direct');
      expect((await box.run(['group', 'create', 'rr', '--member', 'echo', '--routing-policy', 'round-robin'])).code).toBe(0);
      expect((await box.run(['group', 'show', 'rr'])).stdout).toMatch(/^policy\s+round-robin$/m);
    } finally {
      await fleet.close();
    }
  });
});

describe('history show by a unique prefix', () => {
  let fleet: Awaited<ReturnType<typeof startAgents>>;
  beforeAll(async () => void (fleet = await startAgents({ echo: { behaviour: 'echo' } })));
  afterAll(() => fleet.close());

  it('takes a unique prefix of the message id like job show, refuses an ambiguous or unknown one', async () => {
    expect((await box.run(['agent', 'add', 'echo', fleet.agents.echo!.baseUrl])).code).toBe(0);
    // Message ids are random: among 17 of them two share their first hex digit (16 values).
    const ids: string[] = [];
    let shared: string | undefined;
    for (let i = 0; i < 17 && !shared; i++) {
      expect((await box.run(['send', 'echo', `question ${i}`])).code).toBe(0);
      const [entry] = (await box.run(['history', 'list', '--limit', '1', '--json'])).json().data.entries;
      shared = ids.find((id) => id[0] === entry.message_id[0]) ? entry.message_id[0] : undefined;
      ids.push(entry.message_id);
    }
    expect(shared).toBeDefined();
    const id = ids[0]!;
    const unique = ids.map((x) => x.slice(0, 8)).filter((p, _, all) => all.filter((q) => q === p).length === 1)[0]!;
    const full = ids.find((x) => x.startsWith(unique))!;

    const byPrefix = await box.run(['history', 'show', unique, '--json']);
    expect(byPrefix.code, byPrefix.stderr).toBe(0);
    expect(byPrefix.json().data.entry.message_id).toBe(full);
    expect((await box.run(['history', 'show', id, '--json'])).json().data.entry.message_id).toBe(id);

    const ambiguous = await box.run(['history', 'show', shared!]);
    expect(ambiguous.code).toBe(64);
    expect(ambiguous.stderr).toContain('more than one');
    const unknown = await box.run(['history', 'show', 'zzzz']);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toMatch(/no send or stream/);
    expect((await box.run(['history', 'show', ''])).code).toBe(64);
  });
});
