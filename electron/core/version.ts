/** The product version, read once from package.json. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { installRoot } from './install-root.js';

function findVersion(): string {
  const root = installRoot();
  if (!root) return '0.0.0';
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
}

export const VERSION = findVersion();
