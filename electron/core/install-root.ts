/**
 * Where missive is installed: the directory of its package.json, found by walking up from this module, and the
 * version that file names. It works from the source tree, from dist/ and from the one-file CLI bundle (dist/cli),
 * whose modules sit at other depths. Read once per process.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Installation {
  root: string;
  version: string;
}

function findInstallation(): Installation | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'missive') return { root: dir, version: pkg.version ?? '0.0.0' };
      } catch {
        /* not ours; keep walking */
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

let found: Installation | null | undefined;

/** The installation, or undefined when no missive package.json is found above this module. */
export function installation(): Installation | undefined {
  if (found === undefined) found = findInstallation() ?? null;
  return found ?? undefined;
}
