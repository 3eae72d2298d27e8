/**
 * Bundles the compiled CLI (dist/electron/cli/index.js) into dist/cli/missive.js with rolldown: one module for what
 * every command needs, and a chunk per lazily loaded command or library (`import()` stays lazy). Resolving and
 * compiling one file instead of hundreds of small ESM modules is most of what `missive --version` and
 * `missive agent list` cost (docs/performance.md). The bundle is CommonJS (dist/cli/package.json says so): Node
 * loads CommonJS files synchronously, without the ES module loader's per-module resolve, read, link and evaluate
 * steps, which made up a third of a whole `missive send`. Native modules and the ones loaded only by demo and gRPC
 * stay in node_modules.
 *
 * What every command would otherwise load at start-up without using it (docs/performance.md, issue 23):
 * - zod (200 KB to compile and run) and the TOML parser are chunks of their own, required on first use (`LAZY`):
 *   the config and registry modules import them, but without a config file `agent list` parses and checks nothing.
 * - commander's node:child_process, required where commander spawns (`lazyChildProcess`).
 * - node:crypto for the migrations' checksums: they are computed here, from the same compiled files, instead of by
 *   every store open (store/db.ts `checksum`, which still hashes any SQL text other than the one a sum is for).
 */
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path/posix';
import { build, RolldownMagicString } from 'rolldown';
import { parseAst } from 'rolldown/parseAst';
import { MIGRATIONS } from '../dist/electron/core/store/migrations/index.js';

const checksums = Object.fromEntries(MIGRATIONS.map((m) => [m.version, createHash('sha256').update(m.sql).digest('hex')]));

/** Chunks that other chunks require on first use of one of their exports instead of when they load. */
const LAZY = [
  { name: 'zod', test: /[\\/]node_modules[\\/]zod[\\/]/ },
  // The TOML parser: read only when there is a config file.
  { name: 'smol-toml', test: /[\\/]node_modules[\\/]smol-toml[\\/]/ },
];

/**
 * An object that loads the module on the first access to it and answers from it from then on. Rolldown reads a
 * chunk's imports as properties of its `require()` result (`require_zod.string(…)`), so they all go through `get`.
 * One line, so the source maps of the chunk stay aligned.
 */
const lazyRequire = (path) =>
  `((load) => { let m; const mod = () => (m ??= load()); return new Proxy({}, { get: (_, k) => mod()[k], has: (_, k) => k in mod(), ownKeys: () => Reflect.ownKeys(mod()), getOwnPropertyDescriptor: (_, k) => { const d = Reflect.getOwnPropertyDescriptor(mod(), k); return d && { ...d, configurable: true }; } }); })(() => require(${JSON.stringify(path)}))`;

/**
 * Rewrites each `const x = require("./zod-….js");` of the other chunks into a lazy require. Fails the build when a
 * chunk names a lazy chunk in any other way (a bare side-effect require would load it eagerly again).
 */
const lazyChunks = {
  name: 'missive-lazy-chunks',
  generateBundle(_options, bundle) {
    const chunks = Object.values(bundle).filter((c) => c.type === 'chunk');
    for (const { name } of LAZY) {
      const lazy = chunks.filter((c) => c.name === name);
      if (lazy.length !== 1) throw new Error(`bundle-cli: expected one "${name}" chunk, found ${lazy.length}`);
      const target = lazy[0].fileName;
      for (const chunk of chunks) {
        if (chunk === lazy[0]) continue;
        let path = relative(dirname(chunk.fileName), target);
        if (!path.startsWith('.')) path = `./${path}`;
        const quoted = JSON.stringify(path);
        const mentions = chunk.code.split(quoted).length - 1;
        if (mentions === 0) continue;
        let rewritten = 0;
        chunk.code = chunk.code.replace(new RegExp(`^const (\\w+) = require\\(${quoted.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\);$`, 'gm'), (_m, binding) => {
          rewritten++;
          return `const ${binding} = ${lazyRequire(path)};`;
        });
        if (rewritten !== mentions)
          throw new Error(
            `bundle-cli: ${chunk.fileName} names ${target} ${mentions} time(s), ${rewritten} of them as \`const x = require(…)\`; only those can load lazily`,
          );
      }
    }
  },
};

/**
 * commander requires node:child_process when it loads, for executable subcommands (`program.command(name, desc)`
 * without an action), which missive does not have; loading it (and net, dgram) cost every command a few ms. The
 * require moves to where commander spawns. Fails the build when commander's line changes.
 */
let commanderRewritten = false;
const lazyChildProcess = {
  name: 'missive-commander-child-process',
  transform(code, id) {
    if (!/[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/.test(id)) return null;
    commanderRewritten = true;
    const eager = "const childProcess = require('node:child_process');";
    if (code.split(eager).length !== 2 || code.split('childProcess.').length - 1 !== code.split('childProcess.spawn(').length - 1) {
      throw new Error(`bundle-cli: ${id} no longer requires node:child_process as expected, or uses more of it than spawn`);
    }
    const start = code.indexOf(eager);
    const rewritten = new RolldownMagicString(code);
    rewritten.overwrite(start, start + eager.length, "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };");
    return { code: rewritten };
  },
  buildEnd(error) {
    if (!error && !commanderRewritten) throw new Error('bundle-cli: commander/lib/command.js was not bundled; update lazyChildProcess');
  },
};

/**
 * Fails the build when a chunk still holds an `import()` expression: bin/compile-cache.js compiles the chunks with
 * node:vm, where Node 20 runs a dynamic import only with --experimental-vm-modules (`dynamicImportInCjs: false`
 * turns the external ones into requires; the chunks load each other with require already).
 */
const noDynamicImport = {
  name: 'missive-no-dynamic-import',
  generateBundle(_options, bundle) {
    for (const chunk of Object.values(bundle)) {
      if (
        chunk.type === 'chunk' &&
        JSON.stringify(parseAst(chunk.code), (_key, value) => (typeof value === 'bigint' ? String(value) : value)).includes('"type":"ImportExpression"')
      ) {
        throw new Error(`bundle-cli: ${chunk.fileName} holds an import() expression, which the CLI's code cache cannot run`);
      }
    }
  },
};

const outDir = new URL('../dist/cli/', import.meta.url);
rmSync(outDir, { recursive: true, force: true });
await build({
  input: { missive: new URL('../dist/electron/cli/index.js', import.meta.url).pathname },
  platform: 'node',
  external: ['better-sqlite3', 'keytar', 'electron', 'express', '@grpc/grpc-js'],
  logLevel: 'warn',
  transform: { define: { MISSIVE_BUILT_MIGRATION_CHECKSUMS: JSON.stringify(checksums) } },
  plugins: [lazyChildProcess, lazyChunks, noDynamicImport],
  output: {
    dir: outDir.pathname,
    format: 'cjs',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    sourcemap: true,
    // External modules loaded lazily (node:readline/promises, @grpc/grpc-js) are required, not imported: the CLI's code
    // cache (bin/compile-cache.js) compiles chunks with node:vm, where Node 20 runs no `import()` without a flag.
    dynamicImportInCjs: false,
    codeSplitting: { groups: LAZY.map((group) => ({ ...group, priority: 10 })) },
  },
});
// No name, so install-root.ts walks on to missive's own package.json.
writeFileSync(new URL('package.json', outDir), `${JSON.stringify({ type: 'commonjs' })}\n`);
