/**
 * Where missive is installed: the directory of its package.json, found by walking up from this module. It works from
 * the source tree, from dist/ and from the one-file CLI bundle (dist/cli), whose modules sit at other depths.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'missive') return dir;
      } catch {
        /* not ours; keep walking */
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

let root: string | null | undefined;

/** The installation directory, or undefined when no missive package.json is found above this module. */
export function installRoot(): string | undefined {
  if (root === undefined) root = findRoot() ?? null;
  return root ?? undefined;
}
