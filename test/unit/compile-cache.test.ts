/**
 * bin/compile-cache.js: the CLI bundle's V8 code cache. Each case runs a small bundle (an entry with a shebang and
 * chunks that require each other, as rolldown writes them) in a child Node process that installs the cache, and reads
 * what the bundle exported and what the cache did. The cached data is code the process runs: a cache directory that
 * someone else can write is never read.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const compileCache = new URL('../../bin/compile-cache.js', import.meta.url).pathname;

let work: string;
let bundle: string;
let cacheRoot: string;

/** The bundle's files, as rolldown writes them: the entry requires its chunks by `./chunks/…`, chunks `./…`. */
function writeBundle(files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(join(bundle, name, '..'), { recursive: true });
    fs.writeFileSync(join(bundle, name), text);
  }
}

const ENTRY = `#!/usr/bin/env node
const a = require('./chunks/a.js');
const b = require('./chunks/b.js');
module.exports = { answer: a.answer, sameA: b.a === a, loads: globalThis.loadsOfA, resolved: require.resolve('./chunks/a.js') };
`;
const CHUNKS = {
  'chunks/a.js': `globalThis.loadsOfA = (globalThis.loadsOfA ?? 0) + 1;\nexports.answer = 'good';\n`,
  'chunks/b.js': `exports.a = require('./a.js');\n`,
};

interface Run {
  exported: { answer: string; sameA: boolean; loads: number; resolved: string } | null;
  stats: { dir: string; hits: number; misses: number; rejected: number; written: number } | null;
}

/** Runs the bundle in a child process with the cache installed (`uid`: whose directories count as this user's). */
function runBundle(options: { uid?: number; execArgv?: string[] } = {}): Run {
  const script = join(work, 'run.cjs');
  fs.writeFileSync(
    script,
    `const { installCompileCache } = require(${JSON.stringify(compileCache)});
const stats = installCompileCache({ bundleDir: ${JSON.stringify(bundle)}, entry: ${JSON.stringify(join(bundle, 'missive.js'))}, cacheRoot: ${JSON.stringify(cacheRoot)}, flags: '--test', uid: ${options.uid ?? 'process.getuid()'} });
const exported = require(${JSON.stringify(join(bundle, 'missive.js'))});
process.on('exit', () => process.stdout.write(JSON.stringify({ exported, stats })));
`,
  );
  return JSON.parse(execFileSync(process.execPath, [...(options.execArgv ?? []), script], { encoding: 'utf8' })) as Run;
}

/** The cache files written for the bundle, by name. */
const cacheFiles = (dir: string) => fs.readdirSync(dir).sort();

beforeEach(() => {
  work = fs.mkdtempSync(join(tmpdir(), 'missive-compile-cache-'));
  bundle = join(work, 'dist/cli');
  cacheRoot = join(work, 'home/cache/code-cache');
  writeBundle({ 'missive.js': ENTRY, ...CHUNKS });
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

describe('the CLI code cache', () => {
  it('compiles every file of the bundle once, then from the cache, with the same exports and one instance per file', () => {
    const first = runBundle();
    expect(first.exported).toEqual({ answer: 'good', sameA: true, loads: 1, resolved: join(bundle, 'chunks/a.js') });
    expect(first.stats).toMatchObject({ hits: 0, misses: 3, rejected: 0, written: 3 });
    const dir = first.stats!.dir;
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(cacheFiles(dir)).toHaveLength(3);
    for (const name of cacheFiles(dir)) expect(fs.statSync(join(dir, name)).mode & 0o777).toBe(0o600);

    const second = runBundle();
    expect(second.exported).toEqual(first.exported);
    expect(second.stats).toMatchObject({ dir, hits: 3, misses: 0, rejected: 0, written: 0 });
  });

  it('compiles a damaged cache file from the source, and writes it again', () => {
    const { dir } = runBundle().stats!;
    const damaged = join(
      dir,
      cacheFiles(dir).find((name) => name.startsWith('chunks%a.js'))!,
    );
    const data = fs.readFileSync(damaged);
    fs.writeFileSync(damaged, data.subarray(0, data.length >> 1));
    const run = runBundle();
    expect(run.exported?.answer).toBe('good');
    expect(run.stats).toMatchObject({ hits: 2, rejected: 1, written: 1 });
    expect(runBundle().stats).toMatchObject({ hits: 3, rejected: 0, written: 0 });
  });

  it('never serves a file that changed: a rebuilt chunk runs as rebuilt', () => {
    runBundle();
    writeBundle({ 'chunks/a.js': CHUNKS['chunks/a.js'].replace("'good'", "'better'") });
    // A rebuild writes the entry too (it names the chunks' new hashes).
    writeBundle({ 'missive.js': `${ENTRY}// rebuilt\n` });
    expect(runBundle().exported?.answer).toBe('better');
  });

  it('runs whatever code the cached data holds: a planted file of the same length replaces the chunk (why the directory must be private)', () => {
    const { dir } = runBundle().stats!;
    plantEvil(dir);
    // Written by this same user, the cache is trusted: V8 checks a cached file against the source's length only.
    expect(runBundle().exported?.answer).toBe('evil');
  });

  it('reads nothing from, and writes nothing to, a cache directory that belongs to someone else', () => {
    const { dir } = runBundle().stats!;
    plantEvil(dir);
    const before = cacheFiles(dir).map((name) => fs.readFileSync(join(dir, name)));
    // Another user's directory: given to another uid (root can), else this user's, read as another user would.
    const root = process.getuid!() === 0;
    if (root) fs.chownSync(dir, 4242, 4242);
    const run = runBundle(root ? {} : { uid: process.getuid!() + 4242 });
    expect(run.stats).toBeNull();
    expect(run.exported?.answer).toBe('good');
    expect(cacheFiles(dir).map((name) => fs.readFileSync(join(dir, name)))).toEqual(before);
  });

  it('reads nothing from a cache directory, or a directory above it, that others can write', () => {
    const { dir } = runBundle().stats!;
    plantEvil(dir);
    for (const loose of [dir, cacheRoot, join(work, 'home')]) {
      fs.chmodSync(loose, 0o777);
      const run = runBundle();
      expect(run.stats).toBeNull();
      expect(run.exported?.answer).toBe('good');
      fs.chmodSync(loose, 0o700);
    }
    // A sticky directory (like /tmp) cannot have its entries swapped by others: it does not stop the cache.
    fs.chmodSync(join(work, 'home'), 0o1777);
    expect(runBundle().stats).not.toBeNull();
  });

  it('reads nothing through a cache directory that is a symbolic link', () => {
    const { dir } = runBundle().stats!;
    const elsewhere = join(work, 'elsewhere');
    fs.renameSync(dir, elsewhere);
    fs.symlinkSync(elsewhere, dir);
    expect(runBundle().stats).toBeNull();
  });

  it('is not used when source maps are on (Node maps stack traces only for what it compiles itself)', () => {
    const run = runBundle({ execArgv: ['--enable-source-maps'] });
    expect(run.stats).toBeNull();
    expect(run.exported?.answer).toBe('good');
  });

  it('keeps a cache per build and Node flags, and removes all but the three most recent', () => {
    const dirs = new Set<string>();
    for (let build = 0; build < 5; build++) {
      writeBundle({ 'missive.js': `${ENTRY}// build ${build}\n` });
      dirs.add(runBundle().stats!.dir);
    }
    // Another V8 flag set is another cache: never tried against this one's, so never rejected.
    dirs.add(runBundle({ execArgv: ['--stack-size=2000'] }).stats!.dir);
    expect(dirs.size).toBe(6);
    expect(fs.readdirSync(cacheRoot)).toHaveLength(3);
  });
});

/**
 * Plants, in `dir`, cached data made from a chunk `a.js` that exports 'evil', the same length as the real one: made
 * by a Node process started as the bundle's are, so V8 finds the flags it expects.
 */
function plantEvil(dir: string): void {
  const name = cacheFiles(dir).find((file) => file.startsWith('chunks%a.js'))!;
  const evil = CHUNKS['chunks/a.js'].replace("'good'", "'evil'");
  const plant = join(work, 'plant.cjs');
  fs.writeFileSync(
    plant,
    `const { Script } = require('node:vm');
const Module = require('node:module');
const script = new Script(Module.wrap(${JSON.stringify(evil)}), { filename: ${JSON.stringify(join(bundle, 'chunks/a.js'))} });
script.runInThisContext()({}, require, { exports: {} }, '', '');
require('node:fs').writeFileSync(${JSON.stringify(join(dir, name))}, script.createCachedData());
`,
  );
  execFileSync(process.execPath, [plant]);
}
