/**
 * The flow an auth ref names, as its non-secret settings: how the secret (token, password, API key, client secret)
 * becomes what a request carries. Stored as JSON beside the auth ref (`auth_refs.flow_json`); never holds a secret.
 *   - header: the secret in a header, after a scheme (the default: `Authorization: Bearer <secret>`)
 *   - basic: `Authorization: Basic base64(username:secret)`
 *   - api_key: the secret as a header, a query parameter or a cookie named `name`
 *   - oauth2_client_credentials: the secret is the client secret; an access token is fetched from the token endpoint
 *   - oauth2_device_code: RFC 8628; the user approves in a browser (`missive auth login`); the secret is optional
 */
import { z } from 'zod';

export const AUTH_FLOWS = ['header', 'basic', 'api_key', 'oauth2_client_credentials', 'oauth2_device_code'] as const;
export type AuthFlowName = (typeof AUTH_FLOWS)[number];
export const API_KEY_PLACES = ['header', 'query', 'cookie'] as const;

/** The stored flow's schema, built on first use (loading the store needs none of it; docs/performance.md). */
function buildAuthFlow() {
  const scopes = z
    .array(
      z
        .string()
        .min(1)
        .refine((s) => !/\s/.test(s), 'must not contain spaces'),
    )
    .max(64);

  return z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('header') }),
    z.strictObject({
      type: z.literal('basic'),
      username: z
        .string()
        .min(1)
        .refine((u) => !u.includes(':'), 'must not contain ":"'),
    }),
    z.strictObject({ type: z.literal('api_key'), in: z.enum(API_KEY_PLACES), name: z.string().min(1).max(256) }),
    z.strictObject({
      type: z.literal('oauth2_client_credentials'),
      token_url: z.string().nullable(),
      issuer: z.string().nullable(),
      client_id: z.string().min(1),
      scopes,
      audience: z.string().nullable(),
    }),
    z.strictObject({
      type: z.literal('oauth2_device_code'),
      device_authorization_url: z.string().nullable(),
      token_url: z.string().nullable(),
      issuer: z.string().nullable(),
      client_id: z.string().min(1),
      scopes,
    }),
  ]);
}

let authFlow: ReturnType<typeof buildAuthFlow> | undefined;

export type AuthFlow = z.infer<ReturnType<typeof buildAuthFlow>>;
export type OAuthFlow = Extract<AuthFlow, { type: 'oauth2_client_credentials' | 'oauth2_device_code' }>;

export const HEADER_FLOW: AuthFlow = { type: 'header' };

export const isOAuthFlow = (flow: AuthFlow): flow is OAuthFlow => flow.type === 'oauth2_client_credentials' || flow.type === 'oauth2_device_code';

/**
 * The schema of a stored flow (`auth_refs.flow_json`), built on first use. The store reads the column through it
 * (store/repos/auth-refs.ts): a flow that does not match is a corrupt row, never the header flow — read as one, a
 * tampered OAuth2 ref would send its client secret to the agent as a bearer token.
 */
export const authFlowSchema = () => (authFlow ??= buildAuthFlow());

/** The flow settings of a `[auth_refs.NAME]` section (or of `auth add`'s flags), as typed there. */
export interface FlowSettings {
  flow?: AuthFlowName;
  username?: string;
  in?: (typeof API_KEY_PLACES)[number];
  name?: string;
  token_url?: string;
  issuer?: string;
  client_id?: string;
  scopes?: string[];
  audience?: string;
  device_authorization_url?: string;
}

/** The flow of a `[auth_refs.NAME]` section (its settings already checked complete by flowSettingIssues). */
export function flowFromSection(ref: FlowSettings): AuthFlow {
  switch (ref.flow ?? 'header') {
    case 'basic':
      return { type: 'basic', username: ref.username! };
    case 'api_key':
      return { type: 'api_key', in: ref.in ?? 'header', name: ref.name! };
    case 'oauth2_client_credentials':
      return {
        type: 'oauth2_client_credentials',
        token_url: ref.token_url ?? null,
        issuer: ref.issuer ?? null,
        client_id: ref.client_id!,
        scopes: ref.scopes ?? [],
        audience: ref.audience ?? null,
      };
    case 'oauth2_device_code':
      return {
        type: 'oauth2_device_code',
        device_authorization_url: ref.device_authorization_url ?? null,
        token_url: ref.token_url ?? null,
        issuer: ref.issuer ?? null,
        client_id: ref.client_id!,
        scopes: ref.scopes ?? [],
      };
    default:
      return HEADER_FLOW;
  }
}

/** The settings each flow reads; any other one given is a mistake worth reporting, not something to ignore. */
const FLOW_KEYS: Record<AuthFlowName, Array<keyof FlowSettings>> = {
  header: [],
  basic: ['username'],
  api_key: ['in', 'name'],
  oauth2_client_credentials: ['token_url', 'issuer', 'client_id', 'scopes', 'audience'],
  oauth2_device_code: ['device_authorization_url', 'token_url', 'issuer', 'client_id', 'scopes'],
};
const SETTING_KEYS: Array<keyof FlowSettings> = [
  'username',
  'in',
  'name',
  'token_url',
  'issuer',
  'client_id',
  'scopes',
  'audience',
  'device_authorization_url',
];

/**
 * What is wrong with a flow's settings, as messages (empty when complete): missing ones, and ones the flow does not
 * use. Shared by the config schema and `auth add`.
 */
export function flowSettingIssues(flow: AuthFlowName, s: FlowSettings): string[] {
  const issues: string[] = [];
  const stray = SETTING_KEYS.filter((k) => s[k] !== undefined && !(k === 'scopes' && s.scopes?.length === 0) && !FLOW_KEYS[flow].includes(k));
  if (stray.length) issues.push(`flow "${flow}" does not use ${stray.join(', ')}`);
  if (flow === 'basic' && !s.username) issues.push('flow "basic" needs username');
  if (flow === 'api_key' && !s.name) issues.push('flow "api_key" needs name (the header, query parameter or cookie name)');
  if (flow === 'oauth2_client_credentials' || flow === 'oauth2_device_code') {
    if (!s.client_id) issues.push(`flow "${flow}" needs client_id`);
    if (flow === 'oauth2_client_credentials' && !s.token_url && !s.issuer)
      issues.push('flow "oauth2_client_credentials" needs token_url or issuer (OpenID Connect discovery)');
    if (flow === 'oauth2_device_code' && !s.issuer && !(s.device_authorization_url && s.token_url)) {
      issues.push('flow "oauth2_device_code" needs device_authorization_url and token_url, or issuer (OpenID Connect discovery)');
    }
  }
  return issues;
}
