/**
 * How an installed gateway reaches the store of the shell that installs it (team mode), without a password in the
 * service file:
 * - the store: from the config file the service reads (`[store] url`: nothing to add), else `MISSIVE_STORE_URL=<the
 *   shell's URL without its password>`; libpq's non-secret variables the shell has (`PGHOST`, `PGPASSFILE`, …) too;
 * - the password: from a file the service file names, never the password itself: `--store-password-file FILE`, the
 *   shell's `MISSIVE_STORE_PASSWORD_FILE`, or a 0600 file missive writes under the profile's state folder from the
 *   password this shell resolves (the URL's, `[store] password_env`'s, an env auth ref's, `PGPASSWORD`). systemd loads
 *   it with `LoadCredential=` (the service reads `%d/missive-store-password`), launchd names the file. `[store]
 *   password_file`, a keyring `password_ref` and `~/.pgpass` are read by the service itself: nothing is written.
 * Then the store the service's environment resolves to is compared with the shell's: another store is refused (exit
 * 78, `config::service_store_mismatch`), so a service never runs on a store its installer did not mean.
 */
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { authError, configError } from '../../../shared/errors.js';
import { secretFileProblem } from '../security/secret-file.js';
import type { EffectiveConfig } from '../config/load.js';
import { isSharedStore, STORE_PASSWORD_FILE_ENV, STORE_URL_ENV, type PostgresSelection, type StoreSelection } from '../store/selection.js';
import { resolveServiceStore, sameStore, STORE_PASSWORD_CREDENTIAL, storeText, storeView, withoutPassword, type StoreView } from './unit-store.js';
import type { ServiceCredential, ServicePlatform } from './types.js';

export { STORE_PASSWORD_CREDENTIAL } from './unit-store.js';
export { STORE_PASSWORD_FILE_ENV } from '../store/selection.js';
/** The file missive writes the shell's password to, in the profile's state folder (0600). */
export const STORE_PASSWORD_FILE_NAME = 'store-password';

/** libpq's variables that say where and how to connect (never a secret), carried into the service as the shell has them. */
const CARRIED_PG_ENV = ['PGHOST', 'PGPORT', 'PGUSER', 'PGDATABASE', 'PGSSLMODE', 'PGCONNECT_TIMEOUT', 'PGAPPNAME', 'PGSERVICE'];
/** The same, naming files: made absolute (a service has no working directory to resolve them against). */
const CARRIED_PG_PATHS = ['PGPASSFILE', 'PGSERVICEFILE', 'PGSYSCONFDIR', 'PGSSLROOTCERT', 'PGSSLCERT', 'PGSSLKEY'];

/** How the service gets the store's password, as reported (never the password). */
export interface PasswordPlan {
  /** Where the installing shell's password comes from (`PGPASSWORD`, `[store] password_env (TEAM_PG_PW)`, …), or `none`. */
  from: string;
  /** How the service reads it: `credential` (systemd LoadCredential), `file` (launchd), or the service's own source. */
  via: 'credential' | 'file' | 'config' | 'keyring' | 'pgpass' | 'none';
  /** The file the service file names (LoadCredential's source, or MISSIVE_STORE_PASSWORD_FILE on launchd). */
  file?: string;
  /** True when missive writes `file` from the shell's password (`gateway install` without --dry-run). */
  written?: boolean;
}

export interface StoreAccessInput {
  platform: ServicePlatform;
  /** The installing shell's store, environment, working directory and config. */
  shell: StoreSelection;
  env: NodeJS.ProcessEnv;
  cwd: string;
  config: Pick<EffectiveConfig, 'authRefs' | 'profile'>;
  /** The service's environment so far: its state location and `--env` pairs. */
  serviceEnv: Array<[string, string]>;
  /** Where the service starts (its user's home) and the profile's state folder (for the password file). */
  home: string;
  stateDir: string;
  /** The SQLite file of this shell (what a SQLite store shows). */
  sqliteFile: string;
  /** `--store-password-file FILE`. */
  passwordFile?: string;
}

export interface StoreAccess {
  /** Variables to add to the service's environment. */
  env: Array<[string, string]>;
  credentials: ServiceCredential[];
  /** The store the service will use (the same as the shell's). */
  store: StoreView;
  password?: PasswordPlan;
  /** Said on stderr: what the service cannot be given here (a keyring it may find locked). */
  warnings: string[];
  /** Writes the password file (0600) when missive makes one; nothing otherwise. Not run by --dry-run. */
  apply(): void;
}

/** The service's environment as a record, later pairs over earlier ones. */
const envRecord = (pairs: Array<[string, string]>): NodeJS.ProcessEnv => Object.fromEntries(pairs);

/** The plan: what to add to the service file so the service uses the shell's store, or an error saying why it cannot. */
export function planStoreAccess(input: StoreAccessInput): StoreAccess {
  const shellView = storeView(input.shell, input.sqliteFile);
  const given = new Set(input.serviceEnv.map(([name]) => name));
  const env: Array<[string, string]> = [];
  if (isSharedStore(input.shell)) env.push(...carriedPgEnv(input, given));
  let service = resolveServiceStore(envRecord([...input.serviceEnv, ...env]), input.config.profile, input.home);
  if (!sameStore(service, shellView) && isSharedStore(input.shell) && !given.has(STORE_URL_ENV)) {
    env.push([STORE_URL_ENV, withoutPassword(input.shell.url)]);
    service = resolveServiceStore(envRecord([...input.serviceEnv, ...env]), input.config.profile, input.home);
  }
  if (!sameStore(service, shellView)) throw mismatch(service, shellView, given.has(STORE_URL_ENV));
  if (!isSharedStore(input.shell)) {
    const warnings = input.passwordFile ? [`--store-password-file is for a shared store; this shell's store is ${storeText(shellView)}: ignored`] : [];
    return { env, credentials: [], store: service, warnings, apply: () => undefined };
  }
  return { ...passwordAccess(input, input.shell), env, store: service };
}

function mismatch(service: StoreView, shell: StoreView, fromFlag: boolean) {
  return configError(
    'service_store_mismatch',
    `the service would use ${storeText(service)}, not this shell's store, ${storeText(shell)}`,
    fromFlag
      ? `Leave --env ${STORE_URL_ENV} out (install writes this shell's store into the service file), or install from a shell whose store is that one (export ${STORE_URL_ENV}=… first).`
      : `Install from a shell that uses the store the service should use (${STORE_URL_ENV}, --store or [store] url), so both agree.`,
  );
}

/** The shell's libpq variables the service file lacks (a relative path made absolute). */
function carriedPgEnv(input: StoreAccessInput, given: Set<string>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const name of [...CARRIED_PG_ENV, ...CARRIED_PG_PATHS]) {
    const value = input.env[name];
    if (!value || given.has(name) || /[\n\r\0]/.test(value)) continue;
    out.push([name, CARRIED_PG_PATHS.includes(name) && !isAbsolute(value) ? resolve(input.cwd, value) : value]);
  }
  return out;
}

type ShellPassword =
  | { kind: 'value'; from: string; value: string }
  | { kind: 'file'; from: string; path: string }
  | { kind: 'config' | 'pgpass' | 'none'; from: string }
  | { kind: 'keyring'; from: string; fallback?: string };

/**
 * Where the shell's password comes from, in the order the store's connection reads them (store/postgres/connect.ts):
 * the URL's, `[store] password_env`, `[store] password_ref`, the password file
 * (MISSIVE_STORE_PASSWORD_FILE, else `[store] password_file`), PGPASSWORD, then libpq's (PGPASSFILE or ~/.pgpass).
 * A password_env or env ref whose variable is unset yields to the password file, as the connection's does.
 */
function shellPassword(input: StoreAccessInput, selection: PostgresSelection): ShellPassword {
  const { env } = input;
  const url = new URL(selection.url);
  const inUrl = url.password ? decodeURIComponent(url.password) : url.searchParams.get('password');
  if (inUrl) return { kind: 'value', from: `the URL of ${selection.from}`, value: inUrl };
  const file = selection.passwordFile;
  const fromFile = (): ShellPassword | undefined =>
    !file
      ? undefined
      : file.from === STORE_PASSWORD_FILE_ENV
        ? { kind: 'file', from: file.from, path: resolve(input.cwd, file.path) }
        : { kind: 'config', from: file.from };
  if (selection.passwordEnv) {
    const value = env[selection.passwordEnv];
    if (value) return { kind: 'value', from: `[store] password_env (${selection.passwordEnv})`, value };
    const found = fromFile();
    if (found) return found;
    throw unsetPassword(`[store] password_env names ${selection.passwordEnv}`, selection.passwordEnv);
  }
  if (selection.passwordRef) {
    const ref = input.config.authRefs[selection.passwordRef];
    if (ref?.kind === 'env') {
      const value = env[ref.env!];
      if (value) return { kind: 'value', from: `[store] password_ref (${selection.passwordRef}, ${ref.env})`, value };
      const found = fromFile();
      if (found) return found;
      throw unsetPassword(`[store] password_ref "${selection.passwordRef}" reads ${ref.env}`, ref.env!);
    }
    const found = fromFile();
    return { kind: 'keyring', from: `[store] password_ref (${selection.passwordRef}, keyring)`, ...(found?.kind === 'file' ? { fallback: found.path } : {}) };
  }
  const found = fromFile();
  if (found) return found;
  if (env.PGPASSWORD) return { kind: 'value', from: 'PGPASSWORD', value: env.PGPASSWORD };
  // libpq's password file (a line for this host, port, database and user is the service's to find; a
  // pg_service.conf password too, PGSERVICEFILE carried).
  const pgpass = env.PGPASSFILE ? resolve(input.cwd, env.PGPASSFILE) : join(input.home, '.pgpass');
  if (existsSync(pgpass)) return { kind: 'pgpass', from: pgpass };
  return { kind: 'none', from: 'none' };
}

const unsetPassword = (what: string, name: string) =>
  authError(
    'env_missing',
    `${what}, which is not set in this shell: the service would start without the store's password and exit 77`,
    `export ${name}=<the PostgreSQL password> and run gateway install again (missive writes it to a 0600 file the service reads), or give --store-password-file FILE.`,
  );

/** A password file the service may read, by secret-file.ts's rule: a regular file that only its owner can read. */
function checkedPasswordFile(path: string, from: string): string {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch {
    throw configError(
      'secret_file_unreadable',
      `the password file ${path} (from ${from}) does not exist or cannot be read`,
      'Give the file that holds the store password (its first line).',
    );
  }
  const problem = secretFileProblem(stats);
  if (problem) throw configError(problem.code, `the password file ${path} (from ${from}) ${problem.why}`, `chmod 600 ${path}, then run gateway install again.`);
  return path;
}

/** How the service gets the password, and the writer of the file missive makes. */
function passwordAccess(input: StoreAccessInput, selection: PostgresSelection): Pick<StoreAccess, 'credentials' | 'password' | 'warnings' | 'apply'> {
  const viaFile = (file: string, from: string, write?: () => void): Pick<StoreAccess, 'credentials' | 'password' | 'warnings' | 'apply'> => ({
    credentials: [{ id: STORE_PASSWORD_CREDENTIAL, source: file, env: STORE_PASSWORD_FILE_ENV }],
    password: { from, via: input.platform === 'linux' ? 'credential' : 'file', file, ...(write ? { written: true } : {}) },
    warnings: [],
    apply: write ?? (() => undefined),
  });
  if (input.passwordFile) {
    const file = checkedPasswordFile(resolve(input.cwd, input.passwordFile), '--store-password-file');
    return viaFile(file, '--store-password-file');
  }
  const found = shellPassword(input, selection);
  switch (found.kind) {
    case 'file':
      return viaFile(checkedPasswordFile(found.path, STORE_PASSWORD_FILE_ENV), found.from);
    case 'value': {
      const file = join(input.stateDir, STORE_PASSWORD_FILE_NAME);
      return viaFile(file, found.from, () => writePasswordFile(file, found.value));
    }
    case 'keyring':
      if (found.fallback) return { ...viaFile(checkedPasswordFile(found.fallback, STORE_PASSWORD_FILE_ENV), found.from) };
      return {
        credentials: [],
        password: { from: found.from, via: 'keyring' },
        warnings: [
          `the service reads the store's password from the OS keyring (${found.from}): a service started with no one logged in may find it locked; --store-password-file FILE avoids that`,
        ],
        apply: () => undefined,
      };
    default:
      return { credentials: [], password: { from: found.from, via: found.kind }, warnings: [], apply: () => undefined };
  }
}

/** Writes `password` to `path`, 0600 from its creation, replacing the file atomically (a reinstall). */
function writePasswordFile(path: string, password: string): void {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  rmSync(temp, { force: true });
  writeFileSync(temp, password, { mode: 0o600, flag: 'wx' });
  renameSync(temp, path);
}
