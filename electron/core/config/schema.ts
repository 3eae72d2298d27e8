/**
 * The `missive.config.v1` TOML schema. Every object is strict: an unknown key is a config error, never ignored.
 *
 * The schemas are built on the first check, not when this module loads: building them is most of what loading the
 * config costs, and a command run without a config file (`agent list`, `send`) checks nothing with them
 * (docs/performance.md). The constants below are plain values.
 */
import { z } from 'zod';
import { isDuration } from './duration.js';
import { API_KEY_PLACES, AUTH_FLOWS, flowSettingIssues } from './auth-flow.js';
import { urlHasPassword, storeUrlIssue } from './store-url.js';

export const CONFIG_SCHEMA_VERSION = 'missive.config.v1';

/** RFC 9110 token: what an HTTP header name may contain. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
export const RESERVED_SERVICE_PARAMS = ['a2a-version', 'a2a-extensions'];
export const BINDINGS = ['http+json', 'json-rpc', 'grpc'] as const;
export type Binding = (typeof BINDINGS)[number];
/** The order missive tries bindings in when an agent names none: HTTP+JSON, then JSON-RPC, then gRPC. */
export const DEFAULT_BINDING_PREFERENCE: Binding[] = ['http+json', 'json-rpc', 'grpc'];
/**
 * A PostgreSQL schema missive keeps a profile in: lower-case so it reads the same quoted or not, at most 63 bytes
 * (PostgreSQL truncates longer names silently), and not `pg_…` (reserved for the system).
 */
export const STORE_SCHEMA = /^(?!pg_)[a-z_][a-z0-9_]{0,62}$/;

function build() {
  const IDENTIFIER = /^[a-z0-9](?:[a-z0-9._-]{0,61}[a-z0-9])?$/;
  const identifier = z.string().regex(IDENTIFIER, 'must be lowercase letters and digits, with - _ . only in the middle, at most 63 characters');

  const headerName = z.string().regex(HEADER_NAME, 'is not a valid HTTP header name');
  const headerValue = z.string().refine((v) => !/[\r\n\0]/.test(v), 'must not contain CR, LF or NUL');

  const AUTH_HEADER_NAMES = ['authorization', 'proxy-authorization', 'cookie'];

  const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
  const ANY_A2A_SCHEME = ['http:', 'https:', 'grpc:', 'grpcs:'];

  interface UrlRule {
    protocols: string[];
    /** The issue when the scheme is not one of `protocols`. */
    protocolMessage: string;
    /** The issue when the text does not parse. */
    invalid: string;
    /** Text without a scheme is read as `<bareScheme>://text` (gRPC targets); otherwise it does not parse. */
    bareScheme?: string;
    credentialsMessage?: string;
    extra?: (url: URL, issue: (message: string) => void) => void;
  }

  /** A URL with a host, one of the allowed schemes, and never embedded credentials. */
  const urlString = (rule: UrlRule) =>
    z.string().superRefine((value, ctx) => {
      const issue = (message: string) => ctx.addIssue({ code: 'custom', message });
      let url: URL;
      try {
        url = new URL(rule.bareScheme && !URL_SCHEME.test(value) ? `${rule.bareScheme}://${value}` : value);
      } catch {
        return issue(rule.invalid);
      }
      if (!rule.protocols.includes(url.protocol)) issue(rule.protocolMessage);
      if (!url.hostname) issue('must have a host');
      if (url.username || url.password) issue(rule.credentialsMessage ?? 'must not embed credentials; use an auth ref instead');
      rule.extra?.(url, issue);
    });

  /** Absolute http(s) URL with a host and no embedded credentials. */
  const httpUrl = urlString({ protocols: ['http:', 'https:'], protocolMessage: 'must use http or https', invalid: 'is not an absolute URL' });

  const duration = z.string().refine(isDuration, 'must be an integer and a unit (ms, s, m, h), greater than zero and at most 596h');

  const bindingName = z.enum(BINDINGS);

  /** An interface URL: absolute http(s), or for gRPC also grpc(s)://host:port or a bare host:port target. */
  const interfaceUrl = urlString({
    protocols: ANY_A2A_SCHEME,
    protocolMessage: 'must use http, https, grpc or grpcs',
    invalid: 'is not an absolute URL or host:port',
    bareScheme: 'grpc',
  });

  /** An origin that may receive an agent's credentials besides its base URL's: scheme, host and optional port. */
  const trustedOrigin = urlString({
    protocols: ANY_A2A_SCHEME,
    protocolMessage: 'must be scheme://host[:port] with http, https, grpc or grpcs',
    invalid: 'is not an origin like https://api.example.com',
    credentialsMessage: 'must not embed credentials',
    extra: (url, issue) => {
      if ((url.pathname && url.pathname !== '/') || url.search || url.hash) issue('must be an origin only, without a path, query or fragment');
    },
  });

  const serviceParameters = z.record(headerName, headerValue).superRefine((map, ctx) => {
    for (const name of Object.keys(map)) {
      const lower = name.toLowerCase();
      if (RESERVED_SERVICE_PARAMS.includes(lower)) {
        ctx.addIssue({ code: 'custom', path: [name], message: `${name} is set by missive; use protocol_version / extensions` });
      } else if (AUTH_HEADER_NAMES.includes(lower)) {
        ctx.addIssue({ code: 'custom', path: [name], message: `${name} carries credentials; use an auth ref instead` });
      }
    }
  });

  const extensionList = z
    .array(
      z
        .string()
        .min(1)
        .refine((e) => !e.includes(',') && !/\s/.test(e), 'must not contain commas or spaces'),
    )
    .refine((list) => new Set(list).size === list.length, 'must not repeat an extension');

  const protocolSection = z.strictObject({
    protocol_version: z
      .string()
      .regex(/^\d+\.\d+$/, 'must look like 1.0')
      .optional(),
    extensions: extensionList.optional(),
    service_parameters: serviceParameters.optional(),
    /** Refuse agents whose Agent Card is unsigned or whose signature does not verify. */
    require_signed_card: z.boolean().optional(),
  });

  const outputSection = z.strictObject({
    format: z.enum(['human', 'json', 'ndjson', 'quiet']).optional(),
    color: z.enum(['auto', 'always', 'never']).optional(),
    redact_secrets: z.literal(true, { message: 'cannot be turned off' }).optional(),
  });

  const storageSection = z.strictObject({
    backend: z.literal('sqlite').optional(),
    database_path: z
      .string()
      .min(1)
      .refine((p) => !p.split(/[\\/]/).includes('..'), 'must not contain ..')
      .optional(),
  });

  const envVarName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

  /**
   * Team mode: the PostgreSQL store (store/selection.ts). The password never lives here: password_env / password_ref /
   * password_file.
   */
  const storeSection = z
    .strictObject({
      url: z
        .string()
        .superRefine((value, ctx) => {
          if (value === '') return;
          const issue = storeUrlIssue(value);
          if (issue) ctx.addIssue({ code: 'custom', message: issue });
          else if (urlHasPassword(value))
            ctx.addIssue({
              code: 'custom',
              message: 'must not embed a password; use password_env, password_ref or password_file (or ~/.pgpass, MISSIVE_STORE_URL / --store)',
            });
        })
        .optional(),
      schema: z
        .string()
        .regex(STORE_SCHEMA, 'must be a lower-case PostgreSQL identifier (a-z, 0-9, _), at most 63 characters, not starting with a digit or pg_')
        .optional(),
      password_env: envVarName.optional(),
      password_ref: identifier.optional(),
      /** A file whose first line is the password (0600 or 0400): security/secret-file.ts. */
      password_file: z.string().min(1, 'must name a file').optional(),
    })
    .refine(
      (s) => [s.password_env, s.password_ref, s.password_file].filter((v) => v !== undefined).length <= 1,
      'give one of password_env, password_ref and password_file, not several',
    );

  const qosSection = z.strictObject({
    timeout: duration.optional(),
    connect_timeout: duration.optional(),
    retry_attempts: z.number().int().min(0).max(10).optional(),
    retry_backoff: duration.optional(),
    max_request_bytes: z.number().int().positive().optional(),
    concurrency: z.number().int().positive().max(1024).optional(),
    max_stream_bytes: z.number().int().positive().optional(),
    max_stream_events: z.number().int().positive().optional(),
    max_answer_objects: z.number().int().positive().optional(),
  });

  const gatewaySection = z.strictObject({
    enabled: z.boolean().optional(),
    bind_address: z
      .string()
      .regex(/^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]):\d{1,5}$/, 'must be IP:port')
      .optional(),
    public_base_url: httpUrl.optional(),
    job_concurrency: z.number().int().positive().max(256).optional(),
    /** The auth refs this gateway's jobs and follows may use (on a shared store, none unless listed). */
    job_auth_refs: z.array(identifier).max(256).optional(),
    /** The reducer commands this gateway runs for `job start reduce --gateway-command NAME`: its own, never the queue's. */
    commands: z.record(identifier, z.string().min(1).max(4096)).optional(),
  });

  const webhookSection = z.strictObject({
    host: z.string().min(1).optional(),
    port: z.number().int().min(0).max(65535).optional(),
    path: z.string().startsWith('/').optional(),
    auth_token_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
      .optional(),
    auth_header: headerName.optional(),
    auth_scheme: z.string().optional(),
    max_body_bytes: z.number().int().positive().optional(),
  });

  const routingSection = z.strictObject({
    default_policy: z.enum(['direct', 'first', 'round-robin', 'capability-match']).optional(),
  });

  const authRefSection = z
    .strictObject({
      kind: z.enum(['env', 'keyring']),
      env: envVarName.optional(),
      keyring_service: z.string().min(1).optional(),
      keyring_account: z.string().min(1).optional(),
      header: headerName.optional(),
      scheme: z.string().optional(),
      flow: z.enum(AUTH_FLOWS).optional(),
      username: z
        .string()
        .min(1)
        .refine((u) => !u.includes(':'), 'must not contain ":"')
        .optional(),
      in: z.enum(API_KEY_PLACES).optional(),
      name: z
        .string()
        .min(1)
        .max(256)
        .refine((n) => !/[\s;=,\r\n\0]/.test(n), 'must not contain spaces, ; = or ,')
        .optional(),
      token_url: httpUrl.optional(),
      issuer: httpUrl.optional(),
      client_id: z.string().min(1).optional(),
      scopes: z
        .array(
          z
            .string()
            .min(1)
            .refine((s) => !/\s/.test(s), 'must not contain spaces'),
        )
        .max(64)
        .optional(),
      audience: z.string().min(1).optional(),
      device_authorization_url: httpUrl.optional(),
    })
    .superRefine((ref, ctx) => {
      for (const message of flowSettingIssues(ref.flow ?? 'header', ref)) ctx.addIssue({ code: 'custom', message });
      if (ref.kind === 'env' && !ref.env) ctx.addIssue({ code: 'custom', message: 'kind "env" needs env = "VAR_NAME"' });
      if (ref.kind === 'keyring' && (!ref.keyring_service || !ref.keyring_account)) {
        ctx.addIssue({ code: 'custom', message: 'kind "keyring" needs keyring_service and keyring_account' });
      }
    });

  /** Mutual TLS: PEM file paths (relative ones are read from the config file's folder) and the passphrase's auth ref. */
  const clientTlsSection = z.strictObject({
    cert_file: z.string().min(1).optional(),
    key_file: z.string().min(1).optional(),
    ca_file: z.string().min(1).optional(),
    passphrase_ref: identifier.optional(),
  });

  const agentSection = z.strictObject({
    base_url: httpUrl,
    /** Any of the bindings (a partial map): the others come from the card. */
    interface_urls: z.partialRecord(bindingName, interfaceUrl).optional(),
    interfaces: z.partialRecord(bindingName, interfaceUrl).optional(),
    binding_preference: z.array(bindingName).min(1).optional(),
    auth_ref: identifier.optional(),
    tags: z.array(z.string().min(1)).optional(),
    notes: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    trusted_origins: z.array(trustedOrigin).optional(),
    allow_cross_origin_auth: z.boolean().optional(),
    /** The JWKS that verifies this agent's signed card (instead of the signature's jku). */
    jwks_url: httpUrl.optional(),
    jwks_file: z.string().min(1).optional(),
    client_tls: clientTlsSection.optional(),
  });

  const profileOverrides = {
    storage: storageSection.optional(),
    store: storeSection.optional(),
    output: outputSection.optional(),
    protocol: protocolSection.optional(),
    gateway: gatewaySection.optional(),
    webhook: webhookSection.optional(),
    routing: routingSection.optional(),
    qos: qosSection.optional(),
  };

  const profileSection = z.strictObject({
    description: z.string().optional(),
    default_agent: identifier.optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    ...profileOverrides,
  });

  const configFile = z.strictObject({
    schema_version: z.literal(CONFIG_SCHEMA_VERSION, { message: `must be "${CONFIG_SCHEMA_VERSION}"` }).optional(),
    default_profile: identifier.optional(),
    profiles: z.record(identifier, profileSection).optional(),
    agents: z.record(identifier, agentSection).optional(),
    auth_refs: z.record(identifier, authRefSection).optional(),
    ...profileOverrides,
  });
  return { identifier, headerName, envVarName, httpUrl, bindingName, interfaceUrl, trustedOrigin, configFile, agentSection, authRefSection };
}

type Schemas = ReturnType<typeof build>;
let built: Schemas | undefined;

/** A schema of this file as callers use it (`safeParse`), built with all the others on the first check. */
const lazy = <K extends keyof Schemas>(key: K): Pick<Schemas[K], 'safeParse'> => ({
  safeParse: ((value: unknown) => (built ??= build())[key].safeParse(value)) as Schemas[K]['safeParse'],
});

export const identifier = lazy('identifier');
export const headerName = lazy('headerName');
export const envVarName = lazy('envVarName');
/** Absolute http(s) URL with a host and no embedded credentials. */
export const httpUrl = lazy('httpUrl');
export const bindingName = lazy('bindingName');
/** An interface URL: absolute http(s), or for gRPC also grpc(s)://host:port or a bare host:port target. */
export const interfaceUrl = lazy('interfaceUrl');
/** An origin that may receive an agent's credentials besides its base URL's: scheme, host and optional port. */
export const trustedOrigin = lazy('trustedOrigin');
export const configFile = lazy('configFile');

export type ConfigFile = z.infer<Schemas['configFile']>;
export type AgentSection = z.infer<Schemas['agentSection']>;
export type AuthRefSection = z.infer<Schemas['authRefSection']>;
