/**
 * Which store a core uses: the profile's SQLite file (the default, nothing set) or a PostgreSQL database (team mode),
 * from `--store URL`, else `MISSIVE_STORE_URL`, else `[store] url` (a profile's `[profiles.<name>.store]` over the
 * top-level one). Deciding connects to nothing and loads no driver: store/postgres/connect.ts opens the pool.
 *
 * Each profile keeps its rows in its own PostgreSQL schema: `[store] schema`, else `missive_<profile>`. Two profiles of
 * one config given the same schema on the same server are refused, so profiles stay apart inside one database.
 */
import { homedir } from 'node:os';
import { dirname, isAbsolute, resolve } from 'node:path';
import { configError } from '../../../shared/errors.js';
import type { EffectiveConfig } from '../config/load.js';
import { STORE_SCHEMA } from '../config/schema.js';
import { redactStoreUrl, storeUrlIssue } from '../config/store-url.js';

export const STORE_URL_ENV = 'MISSIVE_STORE_URL';
/** The file holding the store's password (systemd: `$CREDENTIALS_DIRECTORY/<name>`); over `[store] password_file`. */
export const STORE_PASSWORD_FILE_ENV = 'MISSIVE_STORE_PASSWORD_FILE';

export type StoreUrlSource = '--store' | 'MISSIVE_STORE_URL' | '[store] url';

export interface PostgresSelection {
  kind: 'postgres';
  /** The URL as given, password included when it holds one: never print it (`display` is for that). */
  url: string;
  /** `postgres://user:***@host:port/db?sslmode=…`: the URL without its password. */
  display: string;
  from: StoreUrlSource;
  /** The PostgreSQL schema of this profile (a checked, lower-case identifier). */
  schema: string;
  /** `[store] password_env`: the environment variable that holds the password. */
  passwordEnv?: string;
  /** `[store] password_ref`: the config's auth ref (`[auth_refs.<name>]`, env or keyring) that holds the password. */
  passwordRef?: string;
  /**
   * The file whose first line is the password: `MISSIVE_STORE_PASSWORD_FILE`, else `[store] password_file` (relative
   * to the config file's folder, `~/` the home folder). Read when connecting (security/secret-file.ts).
   */
  passwordFile?: { path: string; from: typeof STORE_PASSWORD_FILE_ENV | '[store] password_file' };
}

export type StoreSelection = { kind: 'sqlite' } | PostgresSelection;

/**
 * Whether other users and hosts share this store (a PostgreSQL database, team mode) rather than it being this user's
 * own file: what the trust model, the config's seeds and the demo decide on (never how a write commits).
 */
export const isSharedStore = (selection: StoreSelection): selection is PostgresSelection => selection.kind === 'postgres';

export interface SelectInput {
  /** `--store URL`. */
  flag?: string;
  env: NodeJS.ProcessEnv;
  config: Pick<EffectiveConfig, 'store' | 'source'>;
  profile: string;
}

/** `missive_<profile>`: lower-case, every character PostgreSQL would need quoting for (`-`, `.`) as `_`. */
export const defaultSchema = (profile: string) => `missive_${profile.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`;

/** The store this invocation uses; a URL that is not PostgreSQL's, or a schema two profiles share, is exit 78. */
export function selectStore(input: SelectInput): StoreSelection {
  const { config, profile } = input;
  const picked = pickUrl(input);
  if (!picked) return { kind: 'sqlite' };
  const [url, from] = picked;
  const issue = storeUrlIssue(url);
  if (issue) {
    throw configError(
      'invalid_store_url',
      `the store URL from ${from} ${issue}`,
      `Give postgres://user@host:port/database (see docs/config.md, [store]), or unset ${from} to use the SQLite file.`,
    );
  }
  const schema = schemaOf(profile, config.store.schema);
  refuseSharedSchema(input, url, schema);
  return {
    kind: 'postgres',
    url,
    display: redactStoreUrl(url),
    from,
    schema,
    passwordEnv: config.store.passwordEnv,
    passwordRef: config.store.passwordRef,
    passwordFile: passwordFileOf(input),
  };
}

/** `MISSIVE_STORE_PASSWORD_FILE`, else `[store] password_file` made absolute; undefined when neither is set. */
function passwordFileOf({ env, config }: SelectInput): PostgresSelection['passwordFile'] {
  if (env[STORE_PASSWORD_FILE_ENV]) return { path: env[STORE_PASSWORD_FILE_ENV]!, from: STORE_PASSWORD_FILE_ENV };
  const written = config.store.passwordFile;
  if (!written) return undefined;
  const path =
    written === '~' || written.startsWith('~/')
      ? resolve(homedir(), written.slice(2))
      : isAbsolute(written)
        ? written
        : resolve(config.source.path ? dirname(config.source.path) : process.cwd(), written);
  return { path, from: '[store] password_file' };
}

/** The URL and where it came from, or undefined (SQLite) when none is set or each is empty. */
function pickUrl({ flag, env, config }: SelectInput): [string, StoreUrlSource] | undefined {
  if (flag) return [flag, '--store'];
  if (env[STORE_URL_ENV]) return [env[STORE_URL_ENV]!, STORE_URL_ENV];
  if (config.store.url) return [config.store.url, '[store] url'];
  return undefined;
}

function schemaOf(profile: string, configured: string | undefined): string {
  if (configured) return configured;
  const derived = defaultSchema(profile);
  if (!STORE_SCHEMA.test(derived)) {
    throw configError(
      'invalid_store_schema',
      `profile "${profile}" makes the PostgreSQL schema name "${derived}", longer than PostgreSQL's 63 characters`,
      `Name one in [profiles.${profile}.store] schema = "…" (a-z, 0-9, _).`,
    );
  }
  return derived;
}

/**
 * Refuses a schema another profile of the config would also use on the same server (`team-a` and `team_a` both make
 * `missive_team_a`; a top-level `[store] schema` is every profile's): their rows would mix.
 */
function refuseSharedSchema(input: SelectInput, url: string, schema: string): void {
  const { config, profile } = input;
  const overridden = input.flag ? input.flag : input.env[STORE_URL_ENV] || undefined;
  for (const [other, settings] of Object.entries(config.store.byProfile)) {
    if (other === profile) continue;
    const otherUrl = overridden ?? settings.url;
    if (otherUrl !== url) continue;
    let otherSchema: string;
    try {
      otherSchema = schemaOf(other, settings.schema);
    } catch {
      continue;
    }
    if (otherSchema !== schema) continue;
    throw configError(
      'store_schema_shared',
      `profiles "${profile}" and "${other}" would both keep their rows in PostgreSQL schema "${schema}"${config.source.path ? ` (${config.source.path})` : ''}`,
      `Give each its own: [profiles.${profile}.store] schema = "…" (profiles stay separate inside one database).`,
    );
  }
}
