/**
 * Opens the pool of a PostgreSQL store (team mode) and checks it with one connection, so a wrong URL, password or
 * certificate fails here with its own code rather than in the middle of a command.
 *
 * The URL is read by pg-connection-string (the parser pg itself uses), with libpq's meaning of `sslmode`
 * (`useLibpqCompat`; pg 8's default reads require / verify-ca as verify-full and warns on stderr):
 * - no `sslmode` (or `disable`): no TLS, as pg does (libpq's default `prefer` would try TLS first);
 * - `prefer`, `require`: TLS, the server's certificate not checked (with `sslrootcert=FILE`, `require` checks its CA
 *   as verify-ca does); pg does not fall back to a plain connection when the server has no TLS;
 * - `verify-ca`: TLS, the certificate signed by the CA of `sslrootcert=FILE` (required), any host name;
 * - `verify-full`: TLS, the certificate signed by a trusted CA (`sslrootcert=FILE`, else Node's CA store) and naming
 *   the host.
 * `sslcert` / `sslkey` give a client certificate. What the URL leaves out (host, port, user, database, sslmode,
 * sslrootcert, sslcert, sslkey, connect_timeout) comes from its libpq service (`service=` or `PGSERVICE`, in
 * `pg_service.conf`), else from the `PG*` variables of `env` (libpq-target.ts). A host that is a folder is a unix socket.
 *
 * The password, from the first source that holds one:
 * 1. the URL's (or its service's `password`);
 * 2. `[store] password_env`'s variable;
 * 3. `[store] password_ref`'s auth ref (env or keyring, declared in the config);
 * 4. the password file: `MISSIVE_STORE_PASSWORD_FILE`, else `[store] password_file` (its first line; a regular file
 *    only its owner can read: security/secret-file.ts);
 * 5. `PGPASSWORD`;
 * 6. the first matching line of `PGPASSFILE` / `~/.pgpass` (pgpass.ts; ignored with a warning when others can read it).
 * 5 and 6 are libpq's own order. A password_env whose variable is unset, or a password_ref with no secret, yields to a
 * password file the environment names (a service unit's MISSIVE_STORE_PASSWORD_FILE) and otherwise fails with its
 * own error. Every password found is given to `remember`, so every output scrubs it. Every connection runs with
 * `search_path` set to the profile's schema (connection `options`), so the repositories name tables unqualified.
 *
 * Errors are built from safe parts (error codes, SQLSTATEs, the redacted URL, the host and port or socket, user and
 * database tried, the first line of the server's or TLS layer's reason), each scrubbed of the password and the URL's
 * secrets; pg's messages are never passed on whole.
 */
import pg from 'pg';
import { parse as parseConnectionString, toClientConfig } from 'pg-connection-string';
import { authError, configError, MissiveError } from '../../../../shared/errors.js';
import type { EffectiveConfig } from '../../config/load.js';
import { storeUrlSecrets } from '../../config/store-url.js';
import { readSecretFile } from '../../security/secret-file.js';
import type { PostgresSelection } from '../selection.js';
import { resolveTarget, targetAddress, type LibpqTarget } from './libpq-target.js';
import { pgpassPath, readPgpass } from './pgpass.js';

/** The keyring as the store reads it (the core's SecretStore). */
export interface KeyringReader {
  available(): Promise<{ ok: true } | { ok: false; reason: string }>;
  get(service: string, account: string): Promise<string | null>;
}

export interface OpenPoolOptions {
  env: NodeJS.ProcessEnv;
  secrets: KeyringReader;
  config: Pick<EffectiveConfig, 'authRefs' | 'qos'>;
  /** Told once, with a message fit to print, when an idle pooled connection fails (the pool replaces it). */
  onError?: (message: string) => void;
  /** Told the password (the URL's, or the one found elsewhere), so every output scrubs it (core.rememberSecrets). */
  remember?: (secrets: string[]) => void;
  /** Where warnings go, each printed once (core.warn): a `.pgpass` others can read, a service key not used. */
  warn?: (message: string) => void;
}

export const DEFAULT_POOL_MAX = 10;
const MAX_POOL_MAX = 1000;

/** The pool of `selection`, its first connection made and released: a failure throws a MissiveError (75, 77 or 78). */
export async function openPool(selection: PostgresSelection, options: OpenPoolOptions): Promise<pg.Pool> {
  const warn = options.warn ?? options.onError ?? (() => undefined);
  const target = resolveStoreTarget(selection, options.env, warn);
  const password = await resolvePassword(selection, target, options, warn);
  const secrets = [...storeUrlSecrets(selection.url), ...(password ? [password] : [])];
  if (secrets.length) options.remember?.(secrets);
  const pool = new pg.Pool(poolConfig(selection, target, options, password, secrets));
  let reported = false;
  pool.on('error', (error) => {
    if (reported) return;
    reported = true;
    options.onError?.(`a pooled connection to the PostgreSQL store ${selection.display} failed: ${safeReason(error, secrets)}`);
  });
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw connectError(error, selection, secrets, target, password !== undefined);
  }
  return pool;
}

/** libpq-target.ts's reading of the URL (service, PG* variables, defaults), its errors naming where the URL came from. */
function resolveStoreTarget(selection: PostgresSelection, env: NodeJS.ProcessEnv, warn: (message: string) => void): LibpqTarget {
  return resolveTarget(selection.url, env, warn, `URL ${selection.display} (from ${selection.from})`);
}

/**
 * pg's Client, closing its socket when connecting fails: pg leaves a login it gave up on (no password for SCRAM) open
 * until the server's authentication_timeout, and the process alive with it.
 */
class StoreClient extends pg.Client {
  override connect(): Promise<pg.Client>;
  override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
  override connect(callback?: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): Promise<pg.Client> | void {
    const close = () => void this.end().catch(() => undefined);
    if (!callback) {
      return super.connect().catch((error: unknown) => {
        close();
        throw error;
      });
    }
    const forward = callback as (...args: unknown[]) => void;
    super.connect(((...args: unknown[]) => {
      if (args[0]) close();
      forward(...args);
    }) as (err: Error) => void);
  }
}

/** pg's settings: the URL as pg-connection-string reads it (libpq's sslmode), with what libpq-target.ts filled in. */
function poolConfig(
  selection: PostgresSelection,
  target: LibpqTarget,
  options: OpenPoolOptions,
  password: string | undefined,
  secrets: string[],
): pg.PoolConfig {
  let parsed: ReturnType<typeof parseConnectionString>;
  let client: pg.ClientConfig;
  try {
    parsed = parseConnectionString(target.url, { useLibpqCompat: true });
    client = toClientConfig(parsed);
  } catch (error) {
    throw configError(
      'invalid_store_url',
      `the store URL ${selection.display} (from ${selection.from}) cannot be used: ${safeReason(error, secrets)}`,
      'See docs/config.md, [store], for the URL and its sslmode, sslrootcert, sslcert and sslkey parameters (or PGSSLMODE, PGSSLROOTCERT, PGSSLCERT, PGSSLKEY).',
    );
  }
  const max = parsed.max === undefined ? DEFAULT_POOL_MAX : Number(parsed.max);
  if (!Number.isInteger(max) || max < 1 || max > MAX_POOL_MAX) {
    throw configError('invalid_store_url', `the store URL ${selection.display}: max must be a whole number from 1 to ${MAX_POOL_MAX}`);
  }
  const connectTimeout = parsed.connect_timeout === undefined ? undefined : Number(parsed.connect_timeout);
  if (connectTimeout !== undefined && !(Number.isInteger(connectTimeout) && connectTimeout > 0)) {
    throw configError(
      'invalid_store_url',
      `the store URL ${selection.display}: connect_timeout (or PGCONNECT_TIMEOUT) must be a whole number of seconds above 0`,
    );
  }
  const schemaOption = `-c search_path=${pg.escapeIdentifier(selection.schema).replace(/[\\ ]/g, '\\$&')}`;
  const { max: _max, connect_timeout: _timeout, password: _password, ...rest } = client as pg.ClientConfig & { max?: unknown; connect_timeout?: unknown };
  return {
    ...rest,
    host: target.host,
    port: target.port,
    user: target.user,
    database: target.database,
    // A function: pg then never falls back to ~/.pgpass itself (deprecated in pg 8) nor to process.env.PGPASSWORD.
    // None is '': a server that asks for one refuses the login (SCRAM: pg gives up before sending it).
    password: async () => password ?? '',
    Client: StoreClient,
    options: [client.options, schemaOption].filter(Boolean).join(' '),
    fallback_application_name: 'missive',
    max,
    connectionTimeoutMillis: connectTimeout !== undefined ? connectTimeout * 1000 : options.config.qos.connectTimeoutMs,
    // A CLI run ends when its work does, even with idle connections still pooled.
    allowExitOnIdle: true,
  } as pg.PoolConfig;
}

/**
 * The password, from the first source that holds one (see the header); undefined when none does (a trust or
 * certificate login). A source the config names that holds nothing yields to a password file the environment names
 * (a service's MISSIVE_STORE_PASSWORD_FILE where the shell's variable or keyring entry is missing); with none, its own
 * error stands.
 */
async function resolvePassword(
  selection: PostgresSelection,
  target: LibpqTarget,
  options: OpenPoolOptions,
  warn: (message: string) => void,
): Promise<string | undefined> {
  const { env } = options;
  if (target.password) return target.password;
  const file = selection.passwordFile;
  if (selection.passwordEnv) {
    const value = env[selection.passwordEnv];
    if (value) return value;
    if (file) return filePassword(file);
    throw authError(
      'env_missing',
      `[store] password_env names ${selection.passwordEnv}, which is not set`,
      `export ${selection.passwordEnv}=<the PostgreSQL password> and try again.`,
    );
  }
  if (selection.passwordRef) {
    try {
      return await refPassword(selection.passwordRef, options);
    } catch (error) {
      if (file && error instanceof MissiveError && error.category === 'auth') return filePassword(file);
      throw error;
    }
  }
  if (file) return filePassword(file);
  if (env.PGPASSWORD) return env.PGPASSWORD;
  return readPgpass(pgpassPath(env, target.passfile), target, warn);
}

/** The first line of the password file (0600 or 0400, a regular file): security/secret-file.ts's checks. */
function filePassword(file: NonNullable<PostgresSelection['passwordFile']>): Promise<string> {
  return readSecretFile(file.path, {
    from: file.from,
    help: `Write the PostgreSQL password as the first line of a file only you can read (chmod 600), or unset ${file.from} (see docs/config.md, [store]).`,
  });
}

/** The secret of the config's auth ref `name` (env var or keyring entry). */
async function refPassword(name: string, { env, secrets, config }: OpenPoolOptions): Promise<string> {
  const ref = config.authRefs[name];
  if (!ref) throw configError('unknown_auth_ref', `[store] password_ref "${name}" has no [auth_refs.${name}] section in the config`);
  if (ref.kind === 'env') {
    const value = env[ref.env!];
    if (value) return value;
    throw authError(
      'env_missing',
      `auth ref "${name}" ([store] password_ref) reads environment variable ${ref.env}, which is not set`,
      `export ${ref.env}=<the PostgreSQL password> and try again.`,
    );
  }
  const available = await secrets.available();
  if (!available.ok)
    throw authError(
      'keyring_unavailable',
      `auth ref "${name}" ([store] password_ref) needs the OS keyring: ${available.reason}`,
      'Use an auth ref of kind "env" or [store] password_env instead.',
    );
  const value = await secrets.get(ref.keyring_service!, ref.keyring_account!);
  if (value) return value;
  throw authError(
    'keyring_missing',
    `auth ref "${name}" ([store] password_ref) has no secret in the keyring (service "${ref.keyring_service}", account "${ref.keyring_account}")`,
    `Store the PostgreSQL password there: missive auth set-secret ${name} (it reads the password from stdin; the store need not be reachable).`,
  );
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'ENOENT',
  'EACCES',
]);
const UNTRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_UNTRUSTED',
]);
/** SQLSTATEs of a server that is there but takes no connection now: too many clients, starting or shutting down. */
const BUSY = new Set(['53300', '57P01', '57P02', '57P03']);

interface PgFailure {
  code?: string;
  message?: string;
  severity?: string;
}

/** `text` with every secret replaced by `***`, cut to one line of at most 300 characters. */
function scrub(text: string, secrets: readonly string[]): string {
  let out = text.split('\n')[0]!;
  for (const secret of secrets) if (secret.length >= 1) out = out.split(secret).join('***');
  return out.length > 300 ? `${out.slice(0, 297)}...` : out;
}

/** An error's reason, fit to print: its code and its first line, without any secret. */
function safeReason(error: unknown, secrets: readonly string[]): string {
  const e = (error ?? {}) as PgFailure;
  const message = typeof e.message === 'string' && e.message ? scrub(e.message, secrets) : 'unknown error';
  return e.code && !message.includes(e.code) ? `${message} (${e.code})` : message;
}

/** Where a password may come from, for the help of a login refused for want of one. */
const PASSWORD_SOURCES_HELP =
  'Give it with [store] password_env = "VAR", [store] password_ref = "<auth ref>" (env or keyring: missive auth set-secret <ref>), ' +
  '[store] password_file = "PATH" or MISSIVE_STORE_PASSWORD_FILE (a 0600 file), PGPASSWORD, or a line in ~/.pgpass (PGPASSFILE; 0600); ' +
  "never in a config file's URL.";

/**
 * What the first connection's failure means, as a MissiveError that names the URL without its password and where it
 * tried: the host and port (or the socket), the user and the database (`given`: a password was sent).
 */
export function connectError(
  error: unknown,
  selection: PostgresSelection,
  secrets: readonly string[],
  target: Pick<LibpqTarget, 'host' | 'port' | 'user' | 'database' | 'service'>,
  given = secrets.length > 0,
): MissiveError {
  if (error instanceof MissiveError) return error;
  const e = (error ?? {}) as PgFailure;
  const code = typeof e.code === 'string' ? e.code : undefined;
  const message = typeof e.message === 'string' ? e.message : '';
  const service = target.service ? `, service "${target.service.name}" of ${target.service.file}` : '';
  const where = `the PostgreSQL store ${selection.display} (from ${selection.from}${service})`;
  const at = targetAddress(target);
  const tried = `${at} (user ${target.user}, database ${target.database})`;
  const login = `for user ${target.user} on ${at}, database ${target.database}`;
  const unset = `or unset ${selection.from} to use the SQLite file`;
  const isServer = !!e.severity && !!code && /^[0-9A-Z]{5}$/.test(code);

  if ((isServer && code === '28P01' && !given) || (!isServer && /client password must be a/i.test(message))) {
    return authError(
      'store_auth_failed',
      `${where} refused the login ${login}: it asks for a password and none was given${isServer ? ` (SQLSTATE ${code})` : ''}`,
      PASSWORD_SOURCES_HELP,
    );
  }
  if (isServer && code!.startsWith('28')) {
    return authError(
      'store_auth_failed',
      `${where} refused the login ${login}: ${scrub(message, secrets)} (SQLSTATE ${code})`,
      'Check the user and its password: the URL, [store] password_env, password_ref or password_file, MISSIVE_STORE_PASSWORD_FILE, PGPASSWORD or ~/.pgpass, the first that holds one (see docs/config.md, [store]).',
    );
  }
  if (isServer && code === '3D000') {
    return new MissiveError(
      'storage',
      'store_database_missing',
      `${where}: there is no database ${target.database} on ${at} (user ${target.user}): ${scrub(message, secrets)} (SQLSTATE ${code})`,
      {
        help: 'Create the database first (createdb, or CREATE DATABASE as its owner); missive creates its schema and tables in it.',
      },
    );
  }
  if (isServer && BUSY.has(code!)) {
    return new MissiveError('storage', 'store_unreachable', `${where} at ${tried} takes no connection now: ${scrub(message, secrets)} (SQLSTATE ${code})`, {
      help: 'Try again later; if it lasts, check the server (max_connections, restarts).',
    });
  }
  if (isServer) {
    return new MissiveError('storage', 'store_connect_failed', `${where} refused the connection to ${tried}: ${scrub(message, secrets)} (SQLSTATE ${code})`);
  }
  if (
    (code && (UNTRUSTED.has(code) || code === 'CERT_HAS_EXPIRED' || code === 'ERR_TLS_CERT_ALTNAME_INVALID' || /^ERR_(TLS|SSL)_/.test(code))) ||
    /does not support SSL/i.test(message)
  ) {
    return new MissiveError('storage', 'store_tls_failed', `TLS with ${where} at ${tried} failed: ${tlsReason(code, message, secrets)}`, {
      help: tlsHelp(code, message),
    });
  }
  if ((code && UNREACHABLE.has(code)) || /timeout|timed out|terminated|closed/i.test(message)) {
    const socket = target.host.startsWith('/');
    const why =
      /timeout|timed out/i.test(message) || code === 'ETIMEDOUT'
        ? 'no answer in time'
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL'
          ? 'its host name does not resolve'
          : code === 'ECONNREFUSED'
            ? 'the connection was refused'
            : socket && code === 'ENOENT'
              ? 'no PostgreSQL socket there'
              : code
                ? `the connection failed (${code})`
                : 'the connection was closed before PostgreSQL answered';
    return new MissiveError('storage', 'store_unreachable', `${where} is unreachable at ${tried}: ${why}`, {
      help: socket
        ? `Check that PostgreSQL runs and keeps its socket in that folder (unix_socket_directories) on that port, ${unset}.`
        : `Check that PostgreSQL runs and listens at that host and port (and that a firewall lets missive through), ${unset}.`,
    });
  }
  return new MissiveError('storage', 'store_connect_failed', `${where} at ${tried}: ${safeReason(error, secrets)}`);
}

function tlsReason(code: string | undefined, message: string, secrets: readonly string[]): string {
  if (/does not support SSL/i.test(message)) return 'the server does not offer TLS';
  if (code && UNTRUSTED.has(code)) return `the server's certificate is not signed by a CA missive trusts (${code})`;
  if (code === 'CERT_HAS_EXPIRED') return "the server's certificate has expired (CERT_HAS_EXPIRED)";
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `the server's certificate does not name this host: ${scrub(message, secrets)}`;
  return safeReason({ code, message }, secrets);
}

function tlsHelp(code: string | undefined, message: string): string {
  if (/does not support SSL/i.test(message)) return 'Turn ssl on in the server, or drop sslmode from the URL (sslmode=disable) on a network you trust.';
  if (code && UNTRUSTED.has(code))
    return 'Give the CA that signed the server certificate: add sslrootcert=/path/to/ca.pem to the URL (sslmode=verify-full checks the host name too).';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return 'Use the host name the certificate names, or sslmode=verify-ca to check the CA alone.';
  return "Check the server's certificate and the URL's sslmode, sslrootcert, sslcert and sslkey (see docs/config.md, [store]).";
}
