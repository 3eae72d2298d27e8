/**
 * The README's quick tour, replayed line by line from README.md itself against the embedded demo agents, in a
 * sandbox: `missive demo serve &`, `missive webhook run … &` and `missive mock serve … &` run as background processes of the real bin, every
 * other line in-process. A `<task-id>` is the newest task of the journal (the one the lines before it started), a
 * loopback port of the tour is swapped for a free one, and every line must exit 0 and show what its comment promises.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPortUrl } from '../support/agents.js';
import { readDb, sandbox, until, type CliResult, type Sandbox } from '../support/cli.js';

const root = new URL('../../', import.meta.url).pathname;

/** The first `sh` block under "## A quick tour". */
export function tourLines(readme: string): string[] {
  const section = readme.slice(readme.indexOf('## A quick tour'));
  const start = section.indexOf('```sh\n');
  if (start < 0) throw new Error('README.md has no sh block under "## A quick tour"');
  const body = section.slice(start + '```sh\n'.length, section.indexOf('\n```', start + 1));
  return body.split('\n').filter((l) => l.trim() !== '');
}

/** Shell words of one line: quotes removed, a `#` word starts the comment, `&&`, `&` and `>` are words of their own, `<…>` is a placeholder. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '#') break;
    if (c === '&' || c === '>') {
      const op = line.startsWith('&&', i) ? '&&' : c;
      words.push(op);
      i += op.length;
      continue;
    }
    let word = '';
    while (i < line.length && !' \t&>'.includes(line[i]!)) {
      const q = line[i]!;
      if (q === '<' && line.indexOf('>', i) > i) {
        // A placeholder such as <task-id>: one word, the reader fills it in.
        const end = line.indexOf('>', i);
        word += line.slice(i, end + 1);
        i = end + 1;
      } else if (q === '"' || q === "'") {
        const end = line.indexOf(q, i + 1);
        if (end < 0) throw new Error(`unbalanced quote in: ${line}`);
        word += line.slice(i + 1, end);
        i = end + 1;
      } else word += line[i++];
    }
    words.push(word);
  }
  return words;
}

/** One command of the tour: its words after `missive`, whether it runs in the background, where stdout goes. */
interface TourCommand {
  line: string;
  args: string[];
  background: boolean;
  redirect: string | null;
}

export function tourCommands(lines: string[]): TourCommand[] {
  const commands: TourCommand[] = [];
  for (const line of lines) {
    const words = shellWords(line);
    const segments: string[][] = [[]];
    for (const w of words) {
      if (w === '&&') segments.push([]);
      else segments.at(-1)!.push(w);
    }
    for (const segment of segments) {
      if (segment[0] === 'export') {
        expect(segment[1], line).toMatch(/^MISSIVE_HOME=/); // the sandbox is that home
        continue;
      }
      expect(segment[0], `every tour line runs missive: ${line}`).toBe('missive');
      const background = segment.at(-1) === '&';
      const rest = background ? segment.slice(1, -1) : segment.slice(1);
      const at = rest.indexOf('>');
      commands.push({ line, args: at < 0 ? rest : rest.slice(0, at), background, redirect: at < 0 ? null : rest[at + 1]! });
    }
  }
  return commands;
}

/** What a line of the tour must show, beyond exiting 0; each key must name exactly one line of the tour. */
const PROMISES: Array<[string, (r: CliResult) => void]> = [
  ['missive agent list', (r) => expect(r.stdout).not.toMatch(/^demo-\S+\s+local\s+\S+\s+-\s*$/m)],
  ['missive conformance demo-echo', (r) => expect(r.stdout).toMatch(/0 failed/)],
  ['missive stream demo-tasks', (r) => expect(r.stdout).toMatch(/task\s+\S+ \(completed\)/)],
  ['missive send demo-slow "take 60s"', (r) => expect(r.stdout).toMatch(/task\s+\S+ \(working\)/)],
  ['missive route explain demo', (r) => expect(r.stdout).toContain('chosen: demo-echo, demo-tasks, demo-stream, demo-slow')],
  ['missive barrier demo --from-bcast b.json', (r) => expect(r.stdout).toMatch(/barrier succeeded: 4 of 4/)],
  ['missive gather demo --from-bcast b.json', (r) => expect(r.stdout).toMatch(/4 gathered, 0 missing/)],
  ['missive reduce demo --from-bcast b.json', (r) => expect(r.stdout).toMatch(/^Vote result: .* of 4 vote\(s\)/)],
  ['missive round demo', (r) => expect(r.stdout).toMatch(/round succeeded/)],
  ['missive context thread launch', (r) => expect(r.stdout).toContain('kick-off')],
  ['missive send demo-tasks "fail', (r) => expect(r.stdout).toMatch(/task\s+\S+ \(failed\)/)],
  [
    'missive load demo-echo',
    (r) => {
      expect(r.stdout).toMatch(/model\s+open-loop at 50\/s/);
      expect(r.stdout).toMatch(/requests\s+100 sent, 100 answered, 100 succeeded, 0 failed/);
      expect(r.stdout).toMatch(/^answer\s+100\s/m);
    },
  ],
  ['missive load demo "status?"', (r) => expect(r.stdout).toMatch(/model\s+closed-loop, 4 virtual users[\s\S]*requests\s+20 sent, 20 answered, 20 succeeded/)],
  ['missive send http://127.0.0.1:8788', (r) => expect(r.stdout).toContain('echo: kick-off')],
  [
    'missive events list --outcome failed',
    (r) => {
      expect(r.stdout).toMatch(/a2a\.send\.completed\s+demo-tasks/);
      expect(r.stdout).not.toMatch(/missive\.(bcast|barrier)\.completed/); // the tour's collectives all succeeded
    },
  ],
];

/** Lines whose output comes from another process a moment later (a callback): run again until it shows, bounded. */
const EVENTUALLY: Array<[string, RegExp]> = [["missive events list --type 'a2a.push.*'", /a2a\.push\.status_update\s+demo-slow/]];

describe('the README quick tour', () => {
  let box: Sandbox;
  const children: ChildProcess[] = [];
  beforeAll(() => void (box = sandbox()));
  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode !== null) continue;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    box.dispose();
  });

  const lines = tourLines(readFileSync(join(root, 'README.md'), 'utf8'));

  it('names each promised line exactly once', () => {
    for (const [key] of [...PROMISES, ...EVENTUALLY])
      expect(
        lines.filter((l) => l.startsWith(key)),
        key,
      ).toHaveLength(1);
  });

  it('runs every line as written against the demo agents', async () => {
    const ports = new Map<string, string>();
    const freePort = async (port: string) => {
      if (!ports.has(port)) ports.set(port, new URL(await closedPortUrl()).port);
      return ports.get(port)!;
    };
    const newestTask = () =>
      readDb(box, (db) => (db.prepare(`SELECT task_id FROM tasks ORDER BY rowid DESC LIMIT 1`).get() as { task_id: string } | undefined)?.task_id);

    const commands = tourCommands(lines);
    expect(commands.length).toBeGreaterThan(30);
    for (const command of commands) {
      const args: string[] = [];
      for (const [i, word] of command.args.entries()) {
        let w = word;
        if (w === '<task-id>') w = newestTask() ?? expect.fail(`no task yet for: ${command.line}`);
        else if (/^<.+>$/.test(w)) expect.fail(`unknown placeholder ${w} in: ${command.line}`);
        if (command.args[i - 1] === '--port') w = await freePort(w);
        const url = /127\.0\.0\.1:(\d+)/.exec(w);
        if (url) w = w.replace(url[0], `127.0.0.1:${await freePort(url[1]!)}`);
        args.push(w);
      }

      if (command.background) {
        const child = spawn(process.execPath, [join(root, 'bin/missive.js'), ...args], { cwd: box.home, env: box.env });
        children.push(child);
        let stdout = '';
        let stderr = '';
        child.stdout!.on('data', (c) => (stdout += c));
        child.stderr!.on('data', (c) => (stderr += c));
        // Every background command prints its first line once it serves.
        await until(
          `\`${command.line}\` to be ready`,
          () => stdout.length > 0 || (child.exitCode !== null && expect.fail(`${command.line} exited ${child.exitCode}: ${stderr}`)),
          20_000,
        );
        continue;
      }

      const eventually = EVENTUALLY.find(([key]) => command.line.startsWith(key));
      let result = await box.run(args);
      if (eventually) {
        const deadline = Date.now() + 10_000;
        for (let tries = 0; tries < 200 && result.code === 0 && !eventually[1].test(result.stdout) && Date.now() < deadline; tries++)
          result = await box.run(args);
        expect(result.stdout, command.line).toMatch(eventually[1]);
      }
      expect(result.code, `${command.line}\n${result.stderr}`).toBe(0);
      if (command.redirect) writeFileSync(join(box.home, command.redirect), result.stdout);
      PROMISES.find(([key]) => command.line.startsWith(key))?.[1](result);
    }
  }, 180_000);
});
