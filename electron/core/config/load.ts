/** Reads, validates and resolves `missive.config.v1` into the effective settings of one profile. */
import { readFileSync } from 'node:fs';
import { parse as parseToml, TomlError } from 'smol-toml';
import type { z } from 'zod';
import { MissiveError } from '../../../shared/errors.js';
import { discoverConfig, type ConfigSource, type DiscoveryInput } from './discover.js';
import { parseDuration } from './duration.js';
import { locateKey } from './locate.js';
import { configFile, type AgentSection, type AuthRefSection, type ConfigFile } from './schema.js';
import { DEFAULT_MAX_ANSWER_OBJECTS, DEFAULT_MAX_STREAM_BYTES, DEFAULT_MAX_STREAM_EVENTS } from './limits.js';

export const DEFAULT_PROTOCOL_VERSION = '1.0';
export const DEFAULT_PROFILE = 'default';

/** `[gateway]` keys of earlier versions that nothing reads: still accepted (a config that has them loads), and warned about. */
const IGNORED_GATEWAY_KEYS = ['enabled', 'bind_address', 'public_base_url'] as const;

export interface EffectiveConfig {
  source: ConfigSource;
  profile: string;
  profiles: string[];
  defaultAgent?: string;
  agents: Record<string, AgentSection>;
  authRefs: Record<string, AuthRefSection>;
  output: { format?: 'human' | 'json' | 'ndjson' | 'quiet'; color: 'auto' | 'always' | 'never' };
  protocol: { version: string; extensions: string[]; serviceParameters: Record<string, string>; requireSignedCard: boolean };
  qos: {
    timeoutMs: number;
    connectTimeoutMs: number;
    retryAttempts: number;
    retryBackoffMs: number;
    maxRequestBytes: number;
    concurrency: number;
    /** A stream's budget (a2a/wire-limits.ts): bytes and events, whoever reads it (CLI, jobs, gateway, GUI). */
    maxStreamBytes: number;
    maxStreamEvents: number;
    /** The most JSON objects and arrays one answer or stream event may hold. */
    maxAnswerObjects: number;
  };
  storage: { databasePath?: string };
  /** `[store]`, the profile's override merged in: which PostgreSQL store (none: SQLite); store/selection.ts reads it. */
  store: StoreSettings;
  gateway: {
    /** `[gateway] job_concurrency`: `gateway run`'s jobs at once when `--concurrency` is not given. */
    jobConcurrency?: number;
    /** `[gateway] job_auth_refs`: the auth refs a gateway may use (undefined: not configured). */
    jobAuthRefs?: string[];
    /** `[gateway.commands]`: reducer commands by name, the only commands a gateway runs. */
    commands: Record<string, string>;
  };
  /** `[webhook]`: the receiver's settings where the file gives them (flags win; webhook/settings.ts has the defaults). */
  webhook: {
    host?: string;
    port?: number;
    path?: string;
    authTokenEnv?: string;
    authHeader?: string;
    authScheme?: string;
    maxBodyBytes?: number;
  };
  /** Keys the file sets that nothing reads any more (`[gateway] enabled`, …): warned about once, otherwise ignored. */
  ignoredKeys: string[];
  routing: { defaultPolicy: string };
}

export interface StoreSettings {
  url?: string;
  /** Where `url` is written: the top-level `[store]` or the profile's `[profiles.<name>.store]`. */
  urlFrom?: 'file' | 'profile';
  schema?: string;
  passwordEnv?: string;
  passwordRef?: string;
  /** `[store] password_file` as written (store/selection.ts resolves it against the config file's folder). */
  passwordFile?: string;
  /** The `url` and `schema` every profile of the file gets from it, so no two profiles are given one schema. */
  byProfile: Record<string, { url?: string; schema?: string }>;
}

export interface LoadInput extends DiscoveryInput {
  profileFlag?: string;
}

/** A config error with the file (and line, when known) it is about: `doctor` and `config show` report them. */
export class ConfigFileError extends MissiveError {
  constructor(
    reason: string,
    message: string,
    readonly file: string | null,
    readonly line?: number,
    readonly column?: number,
    help?: string,
  ) {
    super('config', reason, message, { help });
  }
}

/** `file:line` when the line is known, else the file. */
const at = (label: string, line: number | undefined) => (line ? `${label}:${line}` : label);

/** Each issue as `file:line: key.path: message`, and the line of the first one. */
function describeIssues(error: z.ZodError, text: string, label: string): { message: string; line?: number } {
  let first: number | undefined;
  const message = error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.') || '(top level)';
      const unknownKeys = issue.code === 'unrecognized_keys' ? issue.keys : [];
      const line = locateKey(text, unknownKeys.length ? [...issue.path.map(String), unknownKeys[0]!] : issue.path.map(String));
      first ??= line;
      const what = unknownKeys.length ? `unknown key${unknownKeys.length > 1 ? 's' : ''} ${unknownKeys.map((k) => `"${k}"`).join(', ')}` : issue.message;
      return `${at(label, line)}: ${path}: ${what}`;
    })
    .join('; ');
  return { message, line: first };
}

/** Parses TOML text into a validated config file (exported for tests and `doctor`). */
export function parseConfigText(text: string, label: string): ConfigFile {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (error) {
    const toml = error instanceof TomlError ? error : undefined;
    const where = toml ? `${label}:${toml.line}:${toml.column}` : label;
    throw new ConfigFileError('invalid_toml', `${where}: not valid TOML: ${(error as Error).message.split('\n')[0]}`, label, toml?.line, toml?.column);
  }
  const result = configFile.safeParse(raw);
  if (!result.success) {
    const { message, line } = describeIssues(result.error, text, label);
    throw new ConfigFileError('invalid_config', message, label, line, undefined, 'See docs/config.md for every key and its type.');
  }
  return result.data;
}

/** The config file `source` names, read and validated, with its text (`{}` and no text for built-in defaults). */
export function readConfigFile(source: ConfigSource): { file: ConfigFile; text: string | null } {
  if (!source.path) return { file: {}, text: null };
  let text: string;
  try {
    text = readFileSync(source.path, 'utf8');
  } catch (error) {
    throw new ConfigFileError('config_unreadable', `cannot read ${source.path}: ${(error as Error).message}`, source.path);
  }
  return { file: parseConfigText(text, source.path), text };
}

export function loadConfig(input: LoadInput): EffectiveConfig {
  const source = discoverConfig(input);
  const { file, text } = readConfigFile(source);
  return resolveConfig(file, source, input.profileFlag, text ?? undefined);
}

/**
 * `[store]` with the profile's `[profiles.<name>.store]` over it, key by key; except the password's source, which a
 * profile replaces as a whole (its password_ref drops the top-level password_env or password_file, and so on). An empty url is unset.
 */
function storeSettings(file: ConfigFile, profile: string): StoreSettings {
  const top = file.store ?? {};
  const over = file.profiles?.[profile]?.store ?? {};
  const ownPassword = over.password_env !== undefined || over.password_ref !== undefined || over.password_file !== undefined;
  const password = ownPassword ? over : top;
  const url = (over.url ?? top.url) || undefined;
  const byProfile: StoreSettings['byProfile'] = {};
  for (const name of new Set([DEFAULT_PROFILE, ...Object.keys(file.profiles ?? {})])) {
    const o = file.profiles?.[name]?.store ?? {};
    byProfile[name] = { url: (o.url ?? top.url) || undefined, schema: o.schema ?? top.schema };
  }
  return {
    url,
    urlFrom: url ? (over.url ? 'profile' : 'file') : undefined,
    schema: over.schema ?? top.schema,
    passwordEnv: password.password_env,
    passwordRef: password.password_ref,
    passwordFile: password.password_file,
    byProfile,
  };
}

/** Resolves one profile; `text` (the file's TOML) lets errors name the line of the key at fault. */
export function resolveConfig(file: ConfigFile, source: ConfigSource, profileFlag?: string, text?: string): EffectiveConfig {
  const label = source.path ?? 'built-in defaults';
  const configError = (reason: string, message: string, help?: string, path?: string[]) => {
    const line = text && path ? locateKey(text, path) : undefined;
    return new ConfigFileError(reason, line ? message.replace(label, at(label, line)) : message, source.path ?? null, line, undefined, help);
  };
  const profiles = Object.keys(file.profiles ?? {});
  const defaultProfile = file.default_profile ?? DEFAULT_PROFILE;
  if (file.default_profile && !profiles.includes(file.default_profile) && file.default_profile !== DEFAULT_PROFILE) {
    throw configError('unknown_profile', `${label}: default_profile "${file.default_profile}" has no [profiles.${file.default_profile}] section`, undefined, [
      'default_profile',
    ]);
  }
  const profile = profileFlag ?? defaultProfile;
  if (profile !== DEFAULT_PROFILE && !profiles.includes(profile)) {
    throw configError(
      'unknown_profile',
      `profile "${profile}" is not defined in ${label}`,
      profiles.length
        ? `Known profiles: ${[DEFAULT_PROFILE, ...profiles.filter((p) => p !== DEFAULT_PROFILE)].join(', ')}`
        : 'Add a [profiles.<name>] section.',
    );
  }
  const over = file.profiles?.[profile] ?? {};
  const agents = file.agents ?? {};
  const authRefs = file.auth_refs ?? {};
  for (const [alias, agent] of Object.entries(agents)) {
    if (agent.auth_ref && !authRefs[agent.auth_ref]) {
      throw configError('unknown_auth_ref', `${label}: agents.${alias}.auth_ref "${agent.auth_ref}" has no [auth_refs.${agent.auth_ref}] section`, undefined, [
        'agents',
        alias,
        'auth_ref',
      ]);
    }
  }
  const store = storeSettings(file, profile);
  if (store.passwordRef && !authRefs[store.passwordRef]) {
    const where = over.store?.password_ref ? ['profiles', profile, 'store', 'password_ref'] : ['store', 'password_ref'];
    throw configError(
      'unknown_auth_ref',
      `${label}: ${where.join('.')} "${store.passwordRef}" has no [auth_refs.${store.passwordRef}] section`,
      'The store is opened before anything else: its password ref must be declared in the config file, not with auth add.',
      where,
    );
  }
  if (over.default_agent && !agents[over.default_agent]) {
    throw configError('unknown_agent', `${label}: profiles.${profile}.default_agent "${over.default_agent}" is not a configured agent`, undefined, [
      'profiles',
      profile,
      'default_agent',
    ]);
  }

  const protocol = { ...file.protocol, ...over.protocol };
  const qos = { ...file.qos, ...over.qos };
  const gateway = { ...file.gateway, ...over.gateway };
  const webhook = { ...file.webhook, ...over.webhook };
  const output = { ...file.output, ...over.output };
  const ms = (value: string | undefined, fallback: number, key: string) => {
    if (value === undefined) return fallback;
    try {
      return parseDuration(value, key);
    } catch (error) {
      throw configError('invalid_config', `${label}: ${(error as Error).message}`, undefined, key.split('.'));
    }
  };

  return {
    source,
    profile,
    profiles: [DEFAULT_PROFILE, ...profiles.filter((p) => p !== DEFAULT_PROFILE)],
    defaultAgent: over.default_agent,
    agents,
    authRefs,
    output: { format: output.format, color: output.color ?? 'auto' },
    protocol: {
      version: protocol.protocol_version ?? DEFAULT_PROTOCOL_VERSION,
      extensions: protocol.extensions ?? [],
      serviceParameters: { ...file.protocol?.service_parameters, ...over.protocol?.service_parameters },
      requireSignedCard: protocol.require_signed_card ?? false,
    },
    qos: {
      timeoutMs: ms(qos.timeout, 30_000, 'qos.timeout'),
      connectTimeoutMs: ms(qos.connect_timeout, 10_000, 'qos.connect_timeout'),
      retryAttempts: qos.retry_attempts ?? 2,
      retryBackoffMs: ms(qos.retry_backoff, 250, 'qos.retry_backoff'),
      maxRequestBytes: qos.max_request_bytes ?? 1_048_576,
      concurrency: qos.concurrency ?? 16,
      maxStreamBytes: qos.max_stream_bytes ?? DEFAULT_MAX_STREAM_BYTES,
      maxStreamEvents: qos.max_stream_events ?? DEFAULT_MAX_STREAM_EVENTS,
      maxAnswerObjects: qos.max_answer_objects ?? DEFAULT_MAX_ANSWER_OBJECTS,
    },
    storage: { databasePath: over.storage?.database_path ?? file.storage?.database_path },
    store,
    gateway: {
      jobConcurrency: gateway.job_concurrency,
      jobAuthRefs: gateway.job_auth_refs,
      commands: gateway.commands ?? {},
    },
    webhook: {
      host: webhook.host,
      port: webhook.port,
      path: webhook.path,
      authTokenEnv: webhook.auth_token_env,
      authHeader: webhook.auth_header,
      authScheme: webhook.auth_scheme,
      maxBodyBytes: webhook.max_body_bytes,
    },
    ignoredKeys: IGNORED_GATEWAY_KEYS.filter((key) => gateway[key] !== undefined).map((key) => `[gateway] ${key}`),
    routing: { defaultPolicy: over.routing?.default_policy ?? file.routing?.default_policy ?? 'direct' },
  };
}
