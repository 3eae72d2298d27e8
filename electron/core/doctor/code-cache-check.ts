/**
 * `cli.code_cache`: whether the `missive` command compiles its JavaScript from its code cache (bin/compile-cache.js),
 * and where. The cache is skipped without a word when a directory on its path is writable by another user (on a
 * system whose umask is 002, `~/.cache` often is): this check is where that shows. It asks the shim's own module, so
 * the place and the rule are the ones the CLI uses.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { installation } from '../install-root.js';

const NAME = 'cli.code_cache';
export const NO_COMPILE_CACHE_ENV = 'MISSIVE_NO_COMPILE_CACHE';

/** A doctor check (doctor.ts `DoctorCheck`): it never fails the report. */
export interface CodeCacheCheck {
  name: string;
  status: 'ok' | 'warn' | 'skip';
  message: string;
  details?: Record<string, unknown>;
}

interface CompileCacheModule {
  codeCacheRoot(env: NodeJS.ProcessEnv, cwd: string): string;
  untrusted(dir: string, uid: number | undefined): { path: string; reason: string } | null;
}

/** The size of a file in bytes; 0 for one gone since it was listed (a CLI process renames its temp files in place). */
function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** The caches in `root` (a directory each: a build, Node version and V8 flags) and their size in bytes. */
function cachesIn(root: string): { caches: number; bytes: number } {
  if (!existsSync(root)) return { caches: 0, bytes: 0 };
  let caches = 0;
  let bytes = 0;
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    caches++;
    let files: string[] = [];
    try {
      files = readdirSync(join(root, entry.name));
    } catch {
      // Pruned by a CLI process meanwhile.
    }
    for (const file of files) bytes += sizeOf(join(root, entry.name, file));
  }
  return { caches, bytes };
}

/** `env`: the environment the CLI starts with (a relative MISSIVE_HOME is read from this process's directory, as the shim does). */
export function codeCacheCheck(env: NodeJS.ProcessEnv): CodeCacheCheck {
  if (env[NO_COMPILE_CACHE_ENV]) return { name: NAME, status: 'skip', message: `off: ${NO_COMPILE_CACHE_ENV} is set` };
  const shim = installation() && join(installation()!.root, 'bin/compile-cache.js');
  if (!shim || !existsSync(shim)) return { name: NAME, status: 'skip', message: 'this installation has no `missive` command (bin/compile-cache.js)' };
  const cache = createRequire(shim)(shim) as CompileCacheModule;
  const root = cache.codeCacheRoot(env, process.cwd());
  const why = cache.untrusted(root, process.getuid?.());
  if (why) {
    return {
      name: NAME,
      status: 'warn',
      message: `not used: ${why.path} ${why.reason}, so the cache could run code another user wrote; the CLI compiles its JavaScript on every run instead`,
      details: { root, path: why.path, reason: why.reason, help: `Make ${why.path} writable by you alone (chmod go-w), or set ${NO_COMPILE_CACHE_ENV}=1.` },
    };
  }
  const { caches, bytes } = cachesIn(root);
  return {
    name: NAME,
    status: 'ok',
    message: caches ? `${root}: ${caches} cache(s), ${(bytes / 1024 / 1024).toFixed(1)} MB` : `${root}: none yet (the next command writes it)`,
    details: { root, caches, bytes },
  };
}
