/**
 * libpq's password file: `PGPASSFILE` (or a service's `passfile`), else `~/.pgpass` (`%APPDATA%\postgresql\pgpass.conf`
 * on Windows). Each line is `hostname:port:database:username:password`; the first line whose four fields match the
 * connection gives the password. A field of `*` matches anything; `\:` and `\\` write a `:` or `\` in a field. Lines
 * starting with `#` are comments. The host of a unix socket (a folder) is matched as `localhost`, as libpq does.
 *
 * As libpq, a file that gives its group or other users any access (or that is not a regular file) is ignored, with a
 * warning naming it (security/secret-file.ts's rule, the one `[store] password_file` is refused by).
 *
 * Hand-written after libpq's passwordFromFile (fe-connect.c) rather than with the `pgpass` package: its parser skips
 * lines shorter than 11 characters (`*:*:*:*:pw`), splits `\\:` wrongly, takes only indented `#` lines for comments, and
 * its lookup reads `process.env` and warns straight to `process.stderr`.
 */
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { secretFileProblem } from '../../security/secret-file.js';

/** A .pgpass of a few thousand lines is still far below this. */
const PGPASS_MAX_BYTES = 1024 * 1024;

export interface PgpassTarget {
  /** A host name or address, or a unix socket's folder. */
  host: string;
  port: number;
  database: string;
  user: string;
}

/** The password file libpq would read: `passfile` (a service's), else PGPASSFILE, else the platform's default. */
export function pgpassPath(env: NodeJS.ProcessEnv, passfile?: string, platform: NodeJS.Platform = process.platform): string {
  if (passfile) return passfile;
  if (env.PGPASSFILE) return env.PGPASSFILE;
  if (platform === 'win32') return join(env.APPDATA || homedir(), 'postgresql', 'pgpass.conf');
  return join(env.HOME || homedir(), '.pgpass');
}

/** The rest of `line` after its field matching `token` (`*`, or the token with `\` escapes), or undefined. */
function afterField(line: string, token: string): string | undefined {
  if (line.startsWith('*:')) return line.slice(2);
  let i = 0;
  let t = 0;
  while (i < line.length) {
    let escaped = false;
    if (line[i] === '\\' && i + 1 < line.length) {
      i++;
      escaped = true;
    }
    if (line[i] === ':' && !escaped && t === token.length) return line.slice(i + 1);
    if (t === token.length || line[i] !== token[t]) return undefined;
    i++;
    t++;
  }
  return undefined;
}

/** The password field: up to the first unescaped `:`, each `\x` read as `x`. */
function passwordField(rest: string): string {
  let out = '';
  for (let i = 0; i < rest.length && rest[i] !== ':'; i++) {
    if (rest[i] === '\\' && i + 1 < rest.length) i++;
    out += rest[i];
  }
  return out;
}

/** The password the first matching line of `text` gives `target`, or undefined (none matches, or its password is empty). */
export function pgpassPassword(text: string, target: PgpassTarget): string | undefined {
  const host = !target.host || target.host.startsWith('/') ? 'localhost' : target.host;
  const fields = [host, String(target.port), target.database, target.user];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (!line || line.startsWith('#')) continue;
    let rest: string | undefined = line;
    for (const field of fields) {
      rest = afterField(rest, field);
      if (rest === undefined) break;
    }
    if (rest === undefined) continue;
    return passwordField(rest) || undefined;
  }
  return undefined;
}

/**
 * The password `path` gives `target`; undefined when the file is missing or has no matching line. A file others can
 * read, or that is not a regular file, is ignored and `warn` told why (the caller's warn prints each message once).
 */
export function readPgpass(path: string, target: PgpassTarget, warn: (message: string) => void): string | undefined {
  let text: string;
  try {
    const problem = secretFileProblem(statSync(path), { maxBytes: PGPASS_MAX_BYTES });
    if (problem) {
      warn(`password file "${path}" ${problem.why}: ignored, as libpq does`);
      return undefined;
    }
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined; // missing or unreadable: libpq goes on without it, silently
  }
  return pgpassPassword(text, target);
}
