/**
 * `missive completion bash|zsh|fish|powershell` and `missive manpage`: snapshots of the generated scripts and page,
 * every command and option of `--help` (at every level) present in each of them, and the bash script really
 * completing when sourced. zsh, fish and groff check the syntax where installed; otherwise the text is checked.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../electron/cli/program.js';
import { commandTree, type CommandSpec } from '../../electron/cli/command-tree.js';
import { completionScript, SHELLS, type Shell } from '../../electron/cli/completion.js';
import { manpage, roffText } from '../../electron/cli/manpage.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { startAgents } from '../support/agents.js';
import { COMMAND_MODULES, HIDDEN_COMMAND_MODULES, modulesFor } from '../../electron/cli/command-modules.js';
import { existsSync } from 'node:fs';

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

/** The whole program, as `missive --help` builds it (every command module loaded). */
async function fullProgram(): Promise<Command> {
  return buildProgram({ env: {}, cwd: tmpdir(), io: { stdout: () => undefined, stderr: () => undefined, isTTY: false } }, () => undefined, ['help']);
}

/** What one `--help` screen lists: its option names and its sub-command names (with aliases). */
interface HelpScreen {
  path: string[];
  options: string[];
  commands: Array<{ name: string; aliases: string[] }>;
}

function parseHelp(path: string[], text: string): HelpScreen {
  const section = (title: string) => {
    const start = text.indexOf(`\n${title}:\n`);
    if (start < 0) return [];
    const rest = text.slice(start + title.length + 3);
    const end = rest.search(/\n\S/);
    return (end < 0 ? rest : rest.slice(0, end)).split('\n').filter((l) => /^ {2}\S/.test(l));
  };
  const options = section('Options').flatMap((l) =>
    [
      ...l
        .trim()
        .replace(/ {2,}.*$/, '')
        .matchAll(/(?:^|[\s,])(--?[A-Za-z0-9][\w-]*)/g),
    ].map((m) => m[1]!),
  );
  const commands = section('Commands').map((l) => {
    const [name, ...aliases] = l.trim().split(/\s/)[0]!.split('|');
    return { name: name!, aliases };
  });
  return { path, options, commands };
}

/** Every `--help` screen of the CLI, from `missive --help` down, through the real CLI. */
async function helpScreens(box: Sandbox): Promise<HelpScreen[]> {
  const screens: HelpScreen[] = [];
  const visit = async (path: string[], depth: number) => {
    const res = await box.run([...path, '--help']);
    expect(res.code, `missive ${path.join(' ')} --help`).toBe(0);
    const screen = parseHelp(['missive', ...path], res.stdout);
    screens.push(screen);
    if (depth >= 4) return;
    for (const c of screen.commands) if (c.name !== 'help') await visit([...path, c.name], depth + 1);
  };
  await visit([], 0);
  return screens;
}

let program: Command;
let tree: CommandSpec;
let scripts: Record<Shell, string>;
let page: string;
let screens: HelpScreen[];
let box: Sandbox;
let dir: string;

beforeAll(async () => {
  program = await fullProgram();
  tree = commandTree(program);
  scripts = Object.fromEntries(SHELLS.map((s) => [s, completionScript(s, tree)])) as Record<Shell, string>;
  page = manpage(tree, 'SNAPSHOT');
  box = sandbox();
  screens = await helpScreens(box);
  dir = mkdtempSync(join(tmpdir(), 'missive-completion-'));
  for (const s of SHELLS) writeFileSync(join(dir, s), scripts[s]);
  writeFileSync(join(dir, 'missive.1'), page);
});
afterAll(() => {
  box?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs the sourced bash script once per query (the words typed, the last one being completed) and returns the
 * COMPREPLY of each, in one bash process.
 */
function bashComplete(queries: string[][]): string[][] {
  const body = queries
    .map(
      (words) =>
        `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _missive; printf '%s ' "\${COMPREPLY[@]}"; echo`,
    )
    .join('\n');
  const out = execFileSync('bash', ['-c', `source "${join(dir, 'bash')}"\n${body}`], { encoding: 'utf8', cwd: dir });
  return out
    .split('\n')
    .slice(0, queries.length)
    .map((l) => l.trim().split(/\s+/).filter(Boolean));
}

/** The roff-escaped text of the section of a command in the page, up to the next section. */
function manSection(path: string[]): string {
  const title = path.length === 1 ? '.SH OPTIONS' : `.SS "${path.slice(1).join(' ').replace(/-/g, '\\-')}"`;
  const start = page.indexOf(`\n${title}\n`);
  expect(start, `man page section ${title}`).toBeGreaterThan(0);
  const rest = page.slice(start + title.length + 2);
  const end = rest.search(/\n\.S[SH] /);
  return (end < 0 ? rest : rest.slice(0, end)).replace(/\\-/g, '-');
}

describe('completion scripts and the man page', () => {
  it('match their snapshots', () => {
    for (const shell of SHELLS) expect(scripts[shell]).toMatchSnapshot(shell);
    expect(page).toMatchSnapshot('manpage');
  });

  it('walked every --help screen of the CLI, sub-commands included', () => {
    expect(screens.length).toBeGreaterThan(40);
    expect(screens.map((s) => s.path.join(' '))).toEqual(
      expect.arrayContaining(['missive', 'missive agent', 'missive agent add', 'missive task artifact save']),
    );
    expect(screens[0]!.options).toEqual(expect.arrayContaining(['--json', '-q', '--quiet', '--config', '--help']));
    expect(screens.flatMap((s) => s.options).length).toBeGreaterThan(300);
    expect(screens.find((s) => s.path.join(' ') === 'missive agent add')!.options).toEqual(
      expect.arrayContaining(['--interface', '--auth-ref', '--client-cert', '-h']),
    );
  });

  it('bash: every command and option of every --help screen is completed where --help lists it', () => {
    const queries = screens.flatMap((s) => [
      [...s.path, ''],
      [...s.path, '-'],
    ]);
    const replies = bashComplete(queries);
    screens.forEach((s, i) => {
      const [commands, options] = [replies[2 * i]!, replies[2 * i + 1]!];
      for (const c of s.commands) for (const name of [c.name, ...c.aliases]) expect(commands, `${s.path.join(' ')} <TAB>`).toContain(name);
      for (const o of s.options) if (o !== '-V' && o !== '--version') expect(options, `${s.path.join(' ')} -<TAB>`).toContain(o);
    });
  });

  it('zsh, fish and PowerShell: every command and option of every --help screen is listed for its command', () => {
    const block = (text: string, from: string) => {
      const start = text.indexOf(from);
      expect(start, from).toBeGreaterThanOrEqual(0);
      return text.slice(start, text.indexOf('\n  }', start));
    };
    const zshLine = (fn: string, key: string) =>
      scripts.zsh
        .slice(scripts.zsh.indexOf(`${fn}() {`))
        .split('\n')
        .find((l) => l.startsWith(`    '${key}') reply=(`)) ?? '';
    const zshGlobals = scripts.zsh.split('\n').find((l) => l.startsWith('  reply+=(')) ?? '';
    const psGlobals = block(scripts.powershell, `  '*' = @{`);
    for (const s of screens) {
      const key = s.path.join(' ');
      const ps = block(scripts.powershell, `  '${key}' = @{`);
      for (const c of s.commands) {
        for (const name of [c.name, ...c.aliases]) {
          expect(zshLine('_missive_commands', key), `zsh ${key}`).toContain(`'${name}:`);
          expect(scripts.fish, `fish ${key}`).toContain(`complete -c missive -n '__missive_at "${key}"' -a '${name}'`);
          expect(ps, `powershell ${key}`).toContain(`@('${name}', '${c.name}'`);
        }
      }
      for (const o of s.options) {
        if (o === '-V' || o === '--version') continue;
        expect(`${zshLine('_missive_options', key)} ${zshGlobals}`, `zsh ${key} ${o}`).toContain(`'${o}:`);
        const fishFlag = o.startsWith('--') ? `-l '${o.slice(2)}'` : `-s '${o.slice(1)}'`;
        const fishLines = scripts.fish.split('\n').filter((l) => l.includes(fishFlag));
        expect(
          fishLines.some((l) => l.startsWith(`complete -c missive -n '__missive_at "${key}"'`) || l.startsWith(`complete -c missive -l`)),
          `fish ${key} ${o}`,
        ).toBe(true);
        expect(`${ps}${psGlobals}`, `powershell ${key} ${o}`).toContain(`@('${o}', `);
      }
    }
  });

  it('manpage: a section per command, holding every option its --help lists', () => {
    for (const s of screens) {
      const text = manSection(s.path);
      for (const o of s.options) expect(text, `man: ${s.path.join(' ')} ${o}`).toMatch(new RegExp(`(^|[\\s,"])${o.replace(/[-]/g, '\\-')}([\\s,"]|$)`, 'm'));
      if (s.path.length > 1)
        for (const c of s.commands) if (c.name !== 'help') expect(page).toContain(`.SS "${[...s.path.slice(1), c.name].join(' ').replace(/-/g, '\\-')}"`);
    }
  });

  it('bash: the script parses (bash -n) and completes commands, sub-commands, flags and flag values', () => {
    expect(spawnSync('bash', ['-n', join(dir, 'bash')]).status).toBe(0);
    mkdirSync(join(dir, 'exports'), { recursive: true });
    const [top, agent, send, binding, shells, help, afterGlobal, source, config, outDir] = bashComplete([
      ['missive', 'ag'],
      ['missive', 'agent', ''],
      ['missive', 'send', '--'],
      ['missive', 'send', 'echo', '--binding', ''],
      ['missive', 'completion', ''],
      ['missive', 'help', 'ma'],
      ['missive', '--profile', 'work', 'agent', 'ren'],
      ['missive', 'logs', '--source', 'e'],
      ['missive', '--config', 'missive.'],
      ['missive', 'task', 'artifact', 'export', 'task-1', '--output-dir', ''],
    ]);
    expect(top).toEqual(['agent']);
    expect(agent).toEqual(expect.arrayContaining(['add', 'list', 'show', 'inspect', 'remove', 'rename']));
    expect(agent).not.toContain('--json');
    expect(send).toEqual(expect.arrayContaining(['--binding', '--file', '--context', '--return-immediately', '--json', '--timeout', '--help']));
    expect(send).not.toContain('add');
    expect(binding).toEqual(['http+json', 'json-rpc', 'grpc']);
    expect(shells).toEqual(['bash', 'zsh', 'fish', 'powershell']);
    expect(help).toEqual(['manpage']);
    expect(afterGlobal).toEqual(['rename']);
    expect(source).toEqual(['event-journal']);
    expect(config).toEqual(['missive.1']);
    expect(outDir).toEqual(['exports']);
  });

  it('zsh and fish: the scripts parse where the shell is installed, and register themselves', () => {
    expect(scripts.zsh.startsWith('#compdef missive\n')).toBe(true);
    expect(scripts.zsh).toContain('compdef _missive missive');
    expect(scripts.fish).toContain('complete -c missive -f');
    expect(scripts.powershell).toContain('Register-ArgumentCompleter -Native -CommandName missive');
    if (has('zsh')) expect(spawnSync('zsh', ['-n', join(dir, 'zsh')]).status).toBe(0);
    if (has('fish')) expect(spawnSync('fish', ['--no-execute', join(dir, 'fish')]).status).toBe(0);
    // Quotes balance in every generated line of the PowerShell tree (a broken one would not load).
    for (const line of scripts.powershell.split('\n').filter((l) => l.startsWith('    '))) expect(line.replace(/''/g, '').split("'").length % 2, line).toBe(1);
  });

  it('manpage: roff structure, exit codes from shared/errors.ts, escapes, and groff reads it without warnings', () => {
    expect(page).toMatch(/^\.TH MISSIVE 1 /m);
    for (const section of ['.SH NAME', '.SH SYNOPSIS', '.SH DESCRIPTION', '.SH OPTIONS', '.SH COMMANDS', '.SH "EXIT STATUS"', '.SH ENVIRONMENT', '.SH FILES']) {
      expect(page).toContain(`\n${section}\n`);
    }
    for (const code of [64, 65, 69, 70, 74, 75, 76, 77, 78, 80, 81, 82, 83, 84, 85]) expect(page).toContain(`\n.B ${code}\n`);
    expect(page).toContain('MISSIVE_HOME');
    // No generated line starts a request by accident: every line is a macro we wrote, a comment or plain text.
    for (const line of page.split('\n')) if (/^[.']/.test(line)) expect(line, line).toMatch(/^\.(\\"|TH|SH|SS|TP|PP|B|BI|br)( |$)/);
    expect(roffText(".start 'quote back\\slash")).toBe("\\&.start 'quote back\\eslash");
    expect(roffText("'lead\n.next")).toBe("\\&'lead\n\\&.next");
    expect(roffText('a → b')).toBe('a \\[u2192] b');
    if (has('groff')) {
      const run = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z', join(dir, 'missive.1')], { encoding: 'utf8' });
      expect(run.status).toBe(0);
      expect(run.stderr).toBe('');
    }
  });
});

describe('missive completion / manpage (the CLI)', () => {
  it('prints the script, wraps it with --json, refuses an unknown shell (exit 64)', async () => {
    const bash = await box.run(['completion', 'bash']);
    expect(bash.code).toBe(0);
    expect(bash.stdout).toBe(scripts.bash);
    const json = await box.run(['completion', 'fish', '--json']);
    expect(json.code).toBe(0);
    expect(json.json()).toMatchObject({ ok: true, kind: 'completion', data: { shell: 'fish' } });
    expect(json.json().data.script).toContain('complete -c missive');
    const bad = await box.run(['completion', 'tcsh']);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toMatch(/tcsh/);
  });

  it('works with a broken config file or state directory (a shell sources its completion at every start)', async () => {
    const broken = join(box.home, 'broken.toml');
    writeFileSync(broken, 'schema = [unclosed\n');
    expect((await box.run(['agent', 'list'], { env: { MISSIVE_CONFIG: broken } })).code).toBe(78);
    for (const args of [['completion', 'bash'], ['manpage']]) {
      const res = await box.run(args, { env: { MISSIVE_CONFIG: broken, MISSIVE_HOME: '/dev/null/not-a-dir' } });
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toBe('');
    }
    expect((await box.run(['completion', 'bash'], { env: { MISSIVE_CONFIG: broken } })).stdout).toBe(scripts.bash);
    expect((await box.run(['completion', 'bash', '--json', '--ndjson'], { env: { MISSIVE_CONFIG: broken } })).code).toBe(64);
  });

  it('prints the man page (the whole tree even though it loads only on demand), and --json wraps it', async () => {
    const man = await box.run(['manpage']);
    expect(man.code).toBe(0);
    expect(man.stdout).toMatch(/^\.TH MISSIVE 1 /m);
    for (const name of tree.commands.map((c) => c.name).filter((n) => n !== 'help')) expect(man.stdout).toContain(`.SS "${name.replace(/-/g, '\\-')}"`);
    const json = await box.run(['--json', 'manpage']);
    expect(json.json()).toMatchObject({ ok: true, kind: 'manpage', data: { format: 'roff' } });
  });
});

/** The bash script completing with a stand-in `missive` that answers `__complete KIND -- WORDS…` and logs each call. */
function bashCompleteValues(queries: string[][]): { replies: string[][]; calls: string[] } {
  const stub = [
    'missive() {',
    '  echo "$*" >> "$CALLS"',
    '  case "$1:$2" in',
    "    __complete:agents) printf '%s\\n' echo tasks ;;",
    "    __complete:groups) printf '%s\\n' team ;;",
    "    __complete:contexts) printf '%s\\n' planning ctx-1 ;;",
    "    __complete:tasks) printf '%s\\n' task-aaa task-bbb ;;",
    '  esac',
    '}',
  ].join('\n');
  const calls = join(dir, 'calls.log');
  writeFileSync(calls, '');
  const body = queries
    .map(
      (words) =>
        `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _missive; printf '%s ' "\${COMPREPLY[@]}"; echo`,
    )
    .join('\n');
  const out = execFileSync('bash', ['-c', `source "${join(dir, 'bash')}"\n${stub}\n${body}`], {
    encoding: 'utf8',
    cwd: dir,
    env: { ...process.env, CALLS: calls },
  });
  const replies = out
    .split('\n')
    .slice(0, queries.length)
    .map((l) => l.trim().split(/\s+/).filter(Boolean));
  return { replies, calls: execFileSync('cat', [calls], { encoding: 'utf8' }).split('\n').filter(Boolean) };
}

describe('completion of values from the store', () => {
  it('the scripts ask `missive __complete` for agents, groups, contexts and tasks where an argument or option names one', () => {
    const { replies, calls } = bashCompleteValues([
      ['missive', 'send', ''],
      ['missive', '--profile', 'work', 'send', 'e'],
      ['missive', 'task', 'get', ''],
      ['missive', 'send', 'echo', 'hi', '--context', 'pl'],
      ['missive', 'group', 'show', ''],
      ['missive', 'bcast', ''],
      ['missive', 'task', 'list', '--agent', ''],
      ['missive', 'agent', 'add', ''],
      ['missive', 'events', 'list', '--task', 'task-b'],
    ]);
    expect(replies).toEqual([['echo', 'tasks'], ['echo'], ['task-aaa', 'task-bbb'], ['planning'], ['team'], ['team'], ['echo', 'tasks'], [], ['task-bbb']]);
    expect(calls[0]).toBe('__complete agents -- send');
    expect(calls[1]).toBe('__complete agents -- --profile work send');
    for (const shell of ['zsh', 'fish', 'powershell'] as const) expect(scripts[shell], shell).toContain('__complete');
    if (has('zsh')) expect(spawnSync('zsh', ['-n', join(dir, 'zsh')]).status).toBe(0);
  });

  it('`missive __complete` reads only its own command module (no network, nothing else loaded)', () => {
    const [only, ...rest] = modulesFor(['__complete', 'agents', '--', 'send'], new Set(['--profile', '--config']));
    expect(rest).toEqual([]);
    expect(only!.names).toEqual(['__complete']);
    expect(HIDDEN_COMMAND_MODULES.filter((m) => m.names.includes('__complete'))).toHaveLength(1);
    expect(COMMAND_MODULES.filter((m) => m.names.includes('__complete'))).toEqual([]);
  });
});

describe('missive __complete (the CLI)', () => {
  let fleet: Awaited<ReturnType<typeof startAgents>>;
  let values: Sandbox;
  beforeAll(async () => {
    fleet = await startAgents({ tasks: { behaviour: 'task' } });
    values = sandbox();
    mkdirSync(join(values.home, 'config'), { recursive: true });
    writeFileSync(join(values.home, 'config/config.toml'), '[agents.seeded]\nbase_url = "http://127.0.0.1:9"\n[profiles.work]\n');
    expect((await values.run(['agent', 'add', 'tasks', fleet.agents.tasks!.baseUrl])).code).toBe(0);
    expect((await values.run(['group', 'create', 'team', '--member', 'tasks'])).code).toBe(0);
    expect((await values.run(['context', 'create', '--name', 'planning'])).code).toBe(0);
    expect((await values.run(['send', 'tasks', 'make a task', '--return-immediately'])).code).toBe(0);
  });
  afterAll(async () => {
    values?.dispose();
    await fleet?.close();
  });

  const lines = (text: string) => text.split('\n').filter(Boolean);

  it('prints agent aliases, groups, context names and recent task ids, one a line', async () => {
    const taskIds = (await values.run(['task', 'list', '--json'])).json().data.tasks.map((t: { task_id?: string; id?: string }) => t.task_id ?? t.id);
    expect(taskIds.length).toBeGreaterThan(0);
    const run = async (kind: string) => {
      const res = await values.run(['__complete', kind]);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toBe('');
      return lines(res.stdout);
    };
    expect(await run('agents')).toEqual(['seeded', 'tasks']);
    expect(await run('groups')).toEqual(['team']);
    expect(await run('contexts')).toContain('planning');
    expect(await run('tasks')).toEqual(expect.arrayContaining(taskIds));
  });

  it('reads the profile and config named in the words typed, creates nothing, and says nothing when it cannot', async () => {
    const work = await values.run(['__complete', 'agents', '--', '--profile', 'work', 'send']);
    expect(work.code).toBe(0);
    expect(lines(work.stdout)).toEqual(['seeded']);
    expect(existsSync(join(values.home, 'state/profiles/work'))).toBe(false);
    const fresh = sandbox();
    try {
      expect(lines((await fresh.run(['__complete', 'agents'])).stdout)).toEqual([]);
      expect(existsSync(join(fresh.home, 'state'))).toBe(false);
      const broken = join(fresh.home, 'broken.toml');
      writeFileSync(broken, '[agents\n');
      for (const args of [
        ['__complete', 'agents', '--', '--config', broken],
        ['__complete', 'nonsense'],
      ]) {
        const res = await fresh.run(args);
        expect(res.code).toBe(0);
        expect(res.stdout).toBe('');
        expect(res.stderr).toBe('');
      }
    } finally {
      fresh.dispose();
    }
    expect((await values.run(['--help'])).stdout).not.toContain('__complete');
  });
});
