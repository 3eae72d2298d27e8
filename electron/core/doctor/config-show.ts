/**
 * `config show`: the effective configuration of one invocation, each value with where it came from — a flag, an
 * environment variable, the config file (with its line), a profile's override in it, or the built-in default. Values
 * are written as the config file writes them (durations as `30s`), so a line can be copied into the file. Nothing in
 * the config is a secret by design (auth refs name env vars and keyring entries); values under secret-like keys
 * (metadata, service parameters) are redacted all the same.
 */
import { REDACTED, isSecretKey, redactValue } from '../security/redact.js';
import type { InvocationOptions } from '../handle.js';
import type { StatePaths } from '../config/paths.js';
import type { ConfigSourceKind } from '../config/discover.js';
import { DEFAULT_PROFILE, readConfigFile, type EffectiveConfig } from '../config/load.js';
import { DEFAULT_GATEWAY_CONCURRENCY } from '../config/limits.js';
import { DEFAULT_MAX_BODY } from '../webhook/receiver.js';
import { DEFAULT_RECEIVER_HOST, DEFAULT_RECEIVER_PATH } from '../webhook/settings.js';
import { locateKey } from '../config/locate.js';
import type { ConfigFile } from '../config/schema.js';
import { defaultSchema, isSharedStore, STORE_PASSWORD_FILE_ENV, type StoreSelection, type StoreUrlSource } from '../store/selection.js';

export type ValueSource = 'default' | 'file' | 'profile' | 'env' | 'flag';

export interface ConfigValue {
  key: string;
  value: unknown;
  source: ValueSource;
  /** Where, in words: `--timeout`, `MISSIVE_HOME`, `/home/me/.config/missive/config.toml:12`, `built-in default`. */
  from: string;
}

export interface ConfigShow {
  config_file: string | null;
  config_source: ConfigSourceKind;
  profile: string;
  /** The store in words: `shared PostgreSQL store postgres://user:***@host/db (schema missive_x)` or `SQLite file <path>`. */
  store: string;
  values: ConfigValue[];
}

export interface ShowInput {
  config: EffectiveConfig;
  paths: StatePaths;
  env: NodeJS.ProcessEnv;
  options: InvocationOptions;
  /** The output flag given (`--json`, `--ndjson`, `--quiet`), if any. */
  outputFlag?: string;
  /** The effective A2A service parameters (config and flags merged). */
  serviceParameters: { version: string; extensions: string[]; extra: Record<string, string> };
  timeoutMs: number;
  /** The store this invocation selected (core.storeSelection); the SQLite file when not given. */
  store?: StoreSelection;
}

const DEFAULT = 'built-in default';
const STORE_SOURCE: Record<StoreUrlSource, ValueSource> = { '--store': 'flag', MISSIVE_STORE_URL: 'env', '[store] url': 'file' };
type Section = 'output' | 'protocol' | 'qos' | 'storage' | 'gateway' | 'webhook' | 'routing';

/** A duration as the config writes it: the largest unit that divides it. */
export function formatDuration(ms: number): string {
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const)
    if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

const DISCOVERY_FROM: Record<ConfigSourceKind, string> = {
  flag: '--config',
  env: 'MISSIVE_CONFIG',
  repo: 'MISSIVE_REPO_CONFIG=1 (repo-local file)',
  home: 'MISSIVE_HOME',
  xdg: 'XDG config directories',
  defaults: 'no config file found',
};

/** The settings of the sections, in the file's terms, each with its effective value (durations in ms). */
function sectionSettings(c: EffectiveConfig): Array<[Section, string, unknown, 'duration'?]> {
  return [
    ['output', 'format', c.output.format ?? 'human'],
    ['output', 'color', c.output.color],
    ['protocol', 'protocol_version', c.protocol.version],
    ['protocol', 'extensions', c.protocol.extensions],
    ['protocol', 'require_signed_card', c.protocol.requireSignedCard],
    ['qos', 'timeout', c.qos.timeoutMs, 'duration'],
    ['qos', 'connect_timeout', c.qos.connectTimeoutMs, 'duration'],
    ['qos', 'retry_attempts', c.qos.retryAttempts],
    ['qos', 'retry_backoff', c.qos.retryBackoffMs, 'duration'],
    ['qos', 'max_request_bytes', c.qos.maxRequestBytes],
    ['qos', 'concurrency', c.qos.concurrency],
    ['qos', 'max_stream_bytes', c.qos.maxStreamBytes],
    ['qos', 'max_stream_events', c.qos.maxStreamEvents],
    ['qos', 'max_answer_objects', c.qos.maxAnswerObjects],
    ['storage', 'database_path', c.storage.databasePath ?? null],
    ['gateway', 'job_concurrency', c.gateway.jobConcurrency ?? DEFAULT_GATEWAY_CONCURRENCY],
    ['webhook', 'host', c.webhook.host ?? DEFAULT_RECEIVER_HOST],
    ['webhook', 'port', c.webhook.port ?? 0],
    ['webhook', 'path', c.webhook.path ?? DEFAULT_RECEIVER_PATH],
    ['webhook', 'auth_token_env', c.webhook.authTokenEnv ?? null],
    ['webhook', 'auth_header', c.webhook.authHeader ?? null],
    ['webhook', 'auth_scheme', c.webhook.authScheme ?? null],
    ['webhook', 'max_body_bytes', c.webhook.maxBodyBytes ?? DEFAULT_MAX_BODY],
    ['routing', 'default_policy', c.routing.defaultPolicy],
  ];
}

/** The leaves of a table as dotted keys (arrays and empty tables are values), secret-like keys redacted. */
function leaves(prefix: string[], value: unknown): Array<[string[], unknown]> {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.keys(value).length === 0) return [[prefix, value]];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
    isSecretKey(k) && typeof v === 'string' ? [[[...prefix, k], REDACTED] as [string[], unknown]] : leaves([...prefix, k], v),
  );
}

type Add = (key: string, value: unknown, source: ValueSource, from: string) => void;

/**
 * `store.url` (without its password: the selection's display), `store.schema`, `store.password_env`,
 * `store.password_ref` and `store.password_file` (MISSIVE_STORE_PASSWORD_FILE over it), each from the flag, the
 * environment, the file, the profile's override or the default.
 */
function addStore(input: ShowInput, file: ConfigFile, inFile: (keys: string[]) => string, add: Add): void {
  const { config } = input;
  const selection = input.store ?? { kind: 'sqlite' };
  const over = file.profiles?.[config.profile]?.store ?? {};
  const configured = (key: 'url' | 'schema' | 'password_env' | 'password_ref' | 'password_file'): [ValueSource, string] | undefined => {
    if (over[key] !== undefined) return ['profile', inFile(['profiles', config.profile, 'store', key])];
    if (file.store?.[key] !== undefined) return ['file', inFile(['store', key])];
    return undefined;
  };
  if (!isSharedStore(selection)) add('store.url', null, 'default', `${DEFAULT} (unset: the SQLite file above)`);
  else if (selection.from === '--store') add('store.url', selection.display, 'flag', '--store');
  else if (selection.from === 'MISSIVE_STORE_URL') add('store.url', selection.display, 'env', 'MISSIVE_STORE_URL');
  else {
    const [source, from] = configured('url') ?? ['file', inFile(['store', 'url'])];
    add('store.url', selection.display, source, from);
  }
  const schemaFrom = configured('schema');
  if (schemaFrom) add('store.schema', config.store.schema, ...schemaFrom);
  else add('store.schema', isSharedStore(selection) ? selection.schema : defaultSchema(config.profile), 'default', `${DEFAULT} (missive_<profile>)`);
  for (const [key, value] of [
    ['password_env', config.store.passwordEnv],
    ['password_ref', config.store.passwordRef],
    ['password_file', config.store.passwordFile],
  ] as const) {
    const from = value !== undefined ? configured(key) : undefined;
    if (key === 'password_file' && input.env[STORE_PASSWORD_FILE_ENV])
      add('store.password_file', input.env[STORE_PASSWORD_FILE_ENV], 'env', STORE_PASSWORD_FILE_ENV);
    else if (from) add(`store.${key}`, value, ...from);
    else add(`store.${key}`, null, 'default', DEFAULT);
  }
}

export function showConfig(input: ShowInput): ConfigShow {
  const { config, options, env } = input;
  const path = config.source.path ?? null;
  const { file, text } = path ? readConfigFile(config.source) : { file: {} as ConfigFile, text: null };
  const inFile = (keys: string[]) => {
    const line = text ? locateKey(text, keys) : undefined;
    return line ? `${path}:${line}` : (path ?? DEFAULT);
  };
  const over = file.profiles?.[config.profile] ?? {};
  const values: ConfigValue[] = [];
  const add = (key: string, value: unknown, source: ValueSource, from: string) => values.push({ key, value: redactValue(value), source, from });

  const kind = config.source.kind;
  add('config_file', path, kind === 'flag' ? 'flag' : kind === 'xdg' || kind === 'defaults' ? 'default' : 'env', DISCOVERY_FROM[kind]);
  if (options.profile) add('profile', config.profile, 'flag', '--profile');
  else if (file.default_profile) add('profile', config.profile, 'file', inFile(['default_profile']));
  else add('profile', config.profile ?? DEFAULT_PROFILE, 'default', DEFAULT);
  add(
    'state_dir',
    input.paths.state,
    'env',
    input.paths.root === 'MISSIVE_HOME' ? 'MISSIVE_HOME' : env.XDG_STATE_HOME ? 'XDG_STATE_HOME' : 'XDG default (~/.local/state)',
  );
  const selection = input.store ?? { kind: 'sqlite' };
  // The store this invocation reads and writes: the team's PostgreSQL database (never its password), else the file.
  if (isSharedStore(selection))
    add(
      'database',
      `${selection.display} (schema ${selection.schema})`,
      STORE_SOURCE[selection.from],
      `store.url: the shared PostgreSQL store (${selection.from})`,
    );
  else
    add(
      'database',
      input.paths.database,
      config.storage.databasePath ? 'file' : 'default',
      config.storage.databasePath ? 'storage.database_path' : 'state_dir/missive.sqlite3',
    );
  addStore(input, file, inFile, add);
  if (over.default_agent) add('default_agent', over.default_agent, 'profile', inFile(['profiles', config.profile, 'default_agent']));

  const flagged: Partial<Record<string, [unknown, string]>> = {
    'output.format': input.outputFlag ? [input.outputFlag.replace(/^--?/, '').replace(/^q$/, 'quiet'), input.outputFlag] : undefined,
    'protocol.protocol_version': options.protocolVersion ? [input.serviceParameters.version, '--protocol-version'] : undefined,
    'protocol.extensions': options.extensions?.length ? [input.serviceParameters.extensions, '--a2a-extension'] : undefined,
    'protocol.require_signed_card': options.requireSignedCard ? [true, '--require-signed-card'] : undefined,
    'qos.timeout': options.timeoutMs !== undefined ? [formatDuration(input.timeoutMs), '--timeout'] : undefined,
  };
  for (const [section, key, effective, kind] of sectionSettings(config)) {
    const name = `${section}.${key}`;
    const flag = flagged[name];
    const fromProfile = (over as Record<string, Record<string, unknown> | undefined>)[section]?.[key];
    const fromFile = (file as Record<string, Record<string, unknown> | undefined>)[section]?.[key];
    if (flag) add(name, flag[0], 'flag', flag[1]);
    else if (fromProfile !== undefined) add(name, fromProfile, 'profile', inFile(['profiles', config.profile, section, key]));
    else if (fromFile !== undefined) add(name, fromFile, 'file', inFile([section, key]));
    else add(name, kind === 'duration' ? formatDuration(effective as number) : effective, 'default', DEFAULT);
  }

  const params = input.serviceParameters.extra;
  const fileParams = { ...file.protocol?.service_parameters, ...over.protocol?.service_parameters };
  for (const [name, value] of Object.entries(params)) {
    const inOverride = over.protocol?.service_parameters?.[name] !== undefined;
    const source: ValueSource = fileParams[name] !== value ? 'flag' : inOverride ? 'profile' : 'file';
    const where =
      source === 'flag'
        ? '--service-param'
        : inFile(inOverride ? ['profiles', config.profile, 'protocol', 'service_parameters', name] : ['protocol', 'service_parameters', name]);
    add(`protocol.service_parameters.${name}`, isSecretKey(name) ? REDACTED : value, source, where);
  }

  for (const table of ['agents', 'auth_refs'] as const) {
    for (const [name, section] of Object.entries(file[table] ?? {})) {
      for (const [keys, value] of leaves([table, name], section)) add(keys.join('.'), value, 'file', inFile(keys));
    }
  }
  const store = isSharedStore(selection) ? `shared PostgreSQL store ${selection.display} (schema ${selection.schema})` : `SQLite file ${input.paths.database}`;
  return { config_file: path, config_source: config.source.kind, profile: config.profile, store, values };
}
