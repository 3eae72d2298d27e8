/**
 * What `missive ui --web --open` gives the browser instead of the token URL (as Jupyter does): a small HTML page that
 * redirects to it, in a fresh directory only this user can enter (0700; the file 0600). A browser's command line is
 * readable by every local user (`ps`); the file's path is, its contents are not. Removed when the console stops.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface RedirectFile {
  /** The file:// URL to hand the browser. */
  url: string;
  path: string;
  /** Removes the file and its directory (idempotent). */
  remove(): Promise<void>;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page: a script redirect (no history entry for the file), a meta refresh without scripts, and a link. */
export function redirectPage(target: string): string {
  const href = escapeHtml(target);
  // JSON.stringify leaves "</script>" as is: escape "<" too.
  const literal = JSON.stringify(target).replace(/</g, '\\u003c');
  return [
    '<!doctype html>',
    '<html><head><meta charset="utf-8">',
    `<meta http-equiv="refresh" content="0;url=${href}">`,
    '<meta name="referrer" content="no-referrer">',
    '<title>missive web console</title>',
    `<script>location.replace(${literal});</script>`,
    '</head><body>',
    `<p>Opening the missive web console… If nothing happens, <a href="${href}">open it here</a>.</p>`,
    '</body></html>',
    '',
  ].join('\n');
}

export async function writeRedirectFile(target: string, parent: string = tmpdir()): Promise<RedirectFile> {
  // mkdtemp creates the directory 0700; the file is created new (wx), 0600.
  const dir = await mkdtemp(join(parent, 'missive-console-'));
  const path = join(dir, 'open.html');
  try {
    await writeFile(path, redirectPage(target), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  let removed: Promise<void> | undefined;
  return {
    url: pathToFileURL(path).href,
    path,
    remove: () => (removed ??= rm(dir, { recursive: true, force: true })),
  };
}
