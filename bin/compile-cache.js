// @ts-check
/**
 * A V8 code cache for the CLI's bundle (dist/cli): every `missive` process compiles the same 1–2 MB of JavaScript,
 * and Node 20 keeps no compiled code between processes (Node 22's `module.enableCompileCache` does this for all
 * modules). The bundle's files are compiled here with node:vm, from the cached data V8 made at the end of an earlier
 * run (so it holds the functions that run, not only the top level), and the data of a file compiled without it is
 * written when the process exits.
 *
 * The cached data is code this process runs, so it is read only from a directory that nobody else can write: the
 * directory and each one above it belong to this user (or root) and are writable by nobody else, unless sticky (like
 * /tmp). Anything else and the cache is not used, and nothing is written. A file V8 does not accept (another V8, other
 * flags, a changed file, a damaged file) is compiled as usual and written again. Writes go to a temp file renamed into
 * place (0600, in 0700 directories); a failure to write is ignored: the cache only ever saves time.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const vm = require('node:vm');

// This file's own `require`, whose `main` is the CLI's entry (bin/missive.js).
const require_ = require;

/** How many caches (builds of missive, Node versions, flag sets) are kept side by side; older ones are removed. */
const KEEP_CACHES = 3;

/** FNV-1a, 32 bits, as hex: a short name for a string (node:crypto costs more to load than the whole lookup). */
function shortHash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/**
 * Why `dir` cannot hold code this user runs, or null when it can: it and every directory above it must be this
 * user's (or root's) and writable by nobody else, unless sticky (no one else can put a file in it or swap it for their
 * own). Parts of `dir` that do not exist yet are skipped (they are made 0700 when the cache is written, and checked
 * again then). Always null where there are no owners (Windows). `missive doctor` reports it (`cli.code_cache`).
 *
 * @param {string} dir @param {number | undefined} uid
 * @returns {{ path: string, reason: string } | null}
 */
function untrusted(dir, uid) {
  if (uid === undefined) return null;
  let found = false;
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    let stat;
    try {
      stat = fs.lstatSync(at);
    } catch (error) {
      if (found || /** @type {NodeJS.ErrnoException} */ (error).code !== 'ENOENT') return { path: at, reason: 'cannot be read' };
    }
    if (stat) {
      found = true;
      if (!stat.isDirectory()) return { path: at, reason: stat.isSymbolicLink() ? 'is a symbolic link' : 'is not a directory' };
      if (stat.uid !== uid && stat.uid !== 0) return { path: at, reason: `belongs to another user (uid ${stat.uid})` };
      if ((stat.mode & 0o022) !== 0 && (stat.mode & 0o1000) === 0) {
        return { path: at, reason: `can be written by ${stat.mode & 0o002 ? 'every user' : 'its group'} (mode ${(stat.mode & 0o777).toString(8)})` };
      }
    }
    if (path.dirname(at) === at) return found ? null : { path: at, reason: 'cannot be read' };
  }
}

/** @param {string} dir @param {number | undefined} uid */
const trusted = (dir, uid) => untrusted(dir, uid) === null;

/**
 * Where the CLI keeps its code cache: beside the profiles' caches (electron/core/config/paths.ts), under
 * `$MISSIVE_HOME/cache` when set, else the XDG cache directory's `missive`.
 *
 * @param {NodeJS.ProcessEnv} env @param {string} cwd
 */
function codeCacheRoot(env, cwd) {
  if (env.MISSIVE_HOME) return path.join(path.resolve(cwd, env.MISSIVE_HOME), 'cache', 'code-cache');
  return path.join(env.XDG_CACHE_HOME || path.join(env.HOME || require_('node:os').homedir(), '.cache'), 'missive', 'code-cache');
}

/** Removes all but the KEEP_CACHES most recently used caches in `root`. */
function prune(root) {
  const caches = fs
    .readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({ dir: path.join(root, entry.name), used: fs.statSync(path.join(root, entry.name)).mtimeMs }))
    .sort((a, b) => b.used - a.used);
  for (const { dir } of caches.slice(KEEP_CACHES)) fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Compiles the files under `bundleDir` with a code cache kept in `cacheRoot` (a directory per build of the bundle,
 * Node version and V8 flags, so caches made under other flags are never tried). `flags`: what this process passed
 * to V8 beyond its command line. Returns what happens, for tests (the counts move as files load and at exit), or
 * null when the cache is not used: its directory is not trusted, or source maps are on (Node's loader maps stack
 * traces only for what it compiles itself).
 *
 * @param {{ bundleDir: string, entry: string, cacheRoot: string, flags?: string, uid?: number }} options
 */
function installCompileCache(options) {
  const entry = fs.statSync(options.entry);
  const build = `${entry.size}-${Math.trunc(entry.mtimeMs)}`;
  const v8Flags = shortHash(`${process.execArgv.join(' ')}\0${process.env.NODE_OPTIONS ?? ''}\0${options.flags ?? ''}`);
  const dir = path.join(options.cacheRoot, `${process.version}-${process.arch}-${v8Flags}-${build}`);
  if (process.sourceMapsEnabled || !trusted(dir, options.uid)) return null;
  const bundleDir = path.resolve(options.bundleDir) + path.sep;
  const existed = fs.existsSync(dir);
  const stats = { dir, hits: 0, misses: 0, rejected: 0, written: 0 };
  /** @type {Array<{ script: vm.Script, file: string }>} */
  const pending = [];

  const compile = Module.prototype._compile;
  /** @this {Module} @param {string} content @param {string} filename */
  function compileCached(content, filename) {
    if (!filename.startsWith(bundleDir)) return compile.call(this, content, filename);
    const { size, mtimeMs } = fs.statSync(filename);
    const file = path.join(dir, `${filename.slice(bundleDir.length).replaceAll(path.sep, '%')}.${size}.${Math.trunc(mtimeMs)}.v8`);
    let cachedData;
    if (existed) {
      try {
        cachedData = fs.readFileSync(file);
      } catch {
        // Not cached yet.
      }
    }
    // A shebang line is a syntax error inside the function wrapper: commented out, so every offset stays the same.
    const source = content.startsWith('#!') ? `//${content.slice(2)}` : content;
    const script = new vm.Script(Module.wrap(source), { filename, cachedData });
    if (!cachedData) stats.misses++;
    else if (script.cachedDataRejected) stats.rejected++;
    else stats.hits++;
    if (!cachedData || script.cachedDataRejected) pending.push({ script, file });
    const wrapper = script.runInThisContext({ displayErrors: true });
    return wrapper.call(this.exports, this.exports, requireFor(this), this, filename, path.dirname(filename));
  }
  Module.prototype._compile = compileCached;

  /**
   * The `require` a bundle file's code receives: Node's, except that the bundle's own files (`./chunks/….js`, as the
   * bundler writes them) are loaded straight from their path, without Node's resolution (its stat and realpath calls,
   * the package scope lookup), which cost about as much as compiling them from the cache.
   * @param {Module} mod
   */
  function requireFor(mod) {
    const from = path.dirname(mod.filename);
    /** @param {string} id */
    const require = (id) => {
      const target = id.startsWith('./') && id.endsWith('.js') ? path.join(from, id) : undefined;
      return target?.startsWith(bundleDir) ? requireOwn(target, mod, id) : mod.require(id);
    };
    require.resolve = (/** @type {string} */ request, /** @type {any} */ options) =>
      // @ts-expect-error Node's own resolver, which its `require.resolve` calls the same way.
      Module._resolveFilename(request, mod, false, options);
    require.resolve.paths = (/** @type {string} */ request) =>
      // @ts-expect-error as above
      Module._resolveLookupPaths(request, mod);
    require.main = require_.main;
    // @ts-expect-error Node's loader tables, as its `require` exposes them.
    require.extensions = Module._extensions;
    // @ts-expect-error as above
    require.cache = Module._cache;
    return require;
  }

  /**
   * Loads a file of the bundle as Node's loader would, once (`require.cache` holds it, so a cycle gets the exports
   * so far). A file that is not there is left to Node's `require`, for its usual error.
   * @param {string} filename @param {Module} parent @param {string} id
   */
  function requireOwn(filename, parent, id) {
    // @ts-expect-error Node's module cache, keyed by file name.
    const cached = /** @type {Module | undefined} */ (Module._cache[filename]);
    if (cached) return cached.exports;
    let content;
    try {
      content = fs.readFileSync(filename, 'utf8');
    } catch {
      return parent.require(id);
    }
    const mod = new Module(filename, parent);
    mod.filename = filename;
    // @ts-expect-error Node's lookup paths for bare names (better-sqlite3 and the other external packages).
    mod.paths = Module._nodeModulePaths(path.dirname(filename));
    // @ts-expect-error as above
    Module._cache[filename] = mod;
    let loaded = false;
    try {
      compileCached.call(mod, content, filename);
      loaded = true;
    } finally {
      // @ts-expect-error as above
      if (!loaded) delete Module._cache[filename];
    }
    mod.loaded = true;
    return mod.exports;
  }

  process.once('exit', () => {
    if (pending.length === 0) return;
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (!trusted(dir, options.uid)) return;
      for (const { script, file } of pending) {
        const temp = `${file}.${process.pid}.tmp`;
        try {
          fs.writeFileSync(temp, script.createCachedData(), { mode: 0o600, flag: 'wx' });
          fs.renameSync(temp, file);
          stats.written++;
        } catch {
          fs.rmSync(temp, { force: true });
        }
      }
      if (!existed) prune(options.cacheRoot);
    } catch {
      // Not writable (a read-only home, a full disk): the next process compiles as this one did.
    }
  });
  return stats;
}

module.exports = { installCompileCache, codeCacheRoot, untrusted };
