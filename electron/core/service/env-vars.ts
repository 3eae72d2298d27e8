/** The `--env NAME=VALUE` pairs a service file may carry: plain settings only, never a secret-looking name or value. */
import { usageError } from '../../../shared/errors.js';
import { isSecretKey, redactLogLine } from '../security/redact.js';
import { urlHasPassword } from '../config/store-url.js';

/** Variables `gateway install` sets itself from the current state location; `--env` may not override them. */
export const RESERVED_ENV = ['MISSIVE_HOME', 'MISSIVE_CONFIG', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME'];

const SECRET_HELP =
  'Service files are readable and end up in backups: keep credentials in an auth ref (`missive auth add NAME --keyring-service S --keyring-account A`, then `missive auth set-secret NAME`: stored in the OS keyring) and name the ref in the config instead.';
const JWT = /^eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** A whole value that is an Authorization header's: `Bearer x`, `Basic x`, `Token x` (prose around it is not). */
const AUTH_HEADER_VALUE = /^\s*(bearer|basic|token|apikey|api-key)\s+\S+\s*$/i;

/**
 * True when a value carries a credential: an auth header value, a credential after an auth scheme or a `key=secret`
 * fragment in text, a JWT, or a URL with a password, read by the URL parser as the config loader reads `[store] url`
 * (`config/store-url.ts`: `postgres://:pw@host` with no user and `?password=` included).
 */
export function valueLooksSecret(value: string): boolean {
  return redactLogLine(value) !== value || AUTH_HEADER_VALUE.test(value) || JWT.test(value) || urlHasPassword(value.trim());
}

/** Parses `NAME=VALUE` strings; refuses (exit 64) bad names, reserved names, secret names or values, newlines. */
export function parseServiceEnv(pairs: readonly string[]): Array<[string, string]> {
  const out = new Map<string, string>();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const name = eq > 0 ? pair.slice(0, eq) : '';
    const value = eq > 0 ? pair.slice(eq + 1) : '';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw usageError('invalid_env', `--env ${JSON.stringify(pair.split('=')[0])}: expected NAME=VALUE with NAME of letters, digits and _`);
    if (RESERVED_ENV.includes(name))
      throw usageError(
        'reserved_env',
        `--env ${name}: set by gateway install from the current state location`,
        'Run install with the environment the gateway should use (e.g. MISSIVE_HOME=/abs/path missive gateway install).',
      );
    if (isSecretKey(name)) throw usageError('secret_env', `--env ${name}: the name looks like a secret; refusing to write it into a service file`, SECRET_HELP);
    if (valueLooksSecret(value))
      throw usageError('secret_env', `--env ${name}: the value looks like a credential; refusing to write it into a service file`, SECRET_HELP);
    if (/[\n\r\0]/.test(value)) throw usageError('invalid_env', `--env ${name}: the value may not contain newlines or NUL`);
    out.set(name, value);
  }
  return [...out];
}
