/**
 * libpq's connection service file (`pg_service.conf`): a named service (`PGSERVICE`, or `service=` in the store URL)
 * gives connection settings the URL leaves out (the URL's own win; the service's win over the `PG*` variables).
 *
 * Where it is looked up, as libpq: `PGSERVICEFILE` (else `~/.pg_service.conf`) first; when the service is not there,
 * `PGSYSCONFDIR/pg_service.conf` (PGSYSCONFDIR unset: `/etc/postgresql-common`, Debian's and Ubuntu's libpq default;
 * other builds of libpq compile in other folders, which missive does not guess). A service found in neither is an error.
 *
 * The format, as libpq reads it (hand-written: the `ini` package reads `[a.b]` as nested sections, cuts values at `;`
 * or `#` and strips quotes, none of which libpq does): one `key=value` per line, `[name]` starting a service, lines
 * starting with `#` and blank lines skipped, leading and trailing blanks dropped (around `=` too, a little more lenient
 * than libpq). Only the lines of the service asked for are read, so a syntax error elsewhere in the file does not
 * matter; in it, a line that is not `key=value` or that names a nested `service` is an error, as in libpq.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { configError } from '../../../../shared/errors.js';

/** Debian's and Ubuntu's libpq look for pg_service.conf here when PGSYSCONFDIR is unset. */
const DEFAULT_SYSCONFDIR = '/etc/postgresql-common';

export interface ServiceEntry {
  /** The service's name. */
  name: string;
  /** The file it was found in. */
  file: string;
  /** Its settings, keyword → value (libpq's keywords: host, port, dbname, user, sslmode, …). */
  values: Record<string, string>;
}

/** The files a service is looked up in, in order. */
export function serviceFiles(env: NodeJS.ProcessEnv): string[] {
  const user = env.PGSERVICEFILE || join(env.HOME || homedir(), '.pg_service.conf');
  return [user, join(env.PGSYSCONFDIR || DEFAULT_SYSCONFDIR, 'pg_service.conf')];
}

/** The settings of service `name` in `text` (a pg_service.conf), or undefined when it has no `[name]` section. */
export function parseServiceFile(text: string, name: string, file: string): Record<string, string> | undefined {
  let values: Record<string, string> | undefined;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line || line.startsWith('#')) continue;
    if (line.startsWith('[')) {
      if (values) break; // the next service: the one asked for is complete
      if (line === `[${name}]`) values = Object.create(null) as Record<string, string>;
      continue;
    }
    if (!values) continue;
    const eq = line.indexOf('=');
    const key = eq > 0 ? line.slice(0, eq).trim() : '';
    if (!key) throw serviceSyntax(file, i + 1, 'expected key=value');
    if (key === 'service') throw serviceSyntax(file, i + 1, 'nested service specifications are not supported');
    values[key] = line.slice(eq + 1).trim();
  }
  return values;
}

const serviceSyntax = (file: string, line: number, why: string) =>
  configError(
    'invalid_store_service',
    `syntax error in service file ${file}, line ${line}: ${why}`,
    'Fix the line (key=value, as libpq reads pg_service.conf).',
  );

/** Service `name` from the first file that defines it; a config error (78) naming the files when none does. */
export function readService(name: string, env: NodeJS.ProcessEnv, from: string): ServiceEntry {
  const files = serviceFiles(env);
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      throw configError(
        'invalid_store_service',
        `the service file ${file} cannot be read (${code ?? 'error'})`,
        'Make it readable, or point PGSERVICEFILE at another.',
      );
    }
    const values = parseServiceFile(text, name, file);
    if (values) return { name, file, values };
  }
  throw configError(
    'store_service_not_found',
    `the PostgreSQL service "${name}" (from ${from}) is defined in none of ${files.join(', ')}`,
    'Add a [' + name + '] section with host, port, dbname and user to ~/.pg_service.conf (or the file PGSERVICEFILE names), or give another service.',
  );
}
