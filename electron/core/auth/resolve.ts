/**
 * Resolves auth material into what a request carries, in one place for every outbound request:
 * agent auth ref (by its flow: header, basic, api_key in header / query / cookie, OAuth2 access token) →
 * --bearer-token-env → --header (a later header of the same name replaces an earlier one).
 * Everything missing fails here, before any request is sent (exit 77).
 */
import { authError, MissiveError, type GuiHelp } from '../../../shared/errors.js';
import type { AuthRefRow } from '../store/rows/auth-refs.js';
import { AuthHeaders } from './auth-headers.js';
import { KEYRING_FALLBACK_HELP, type SecretStore } from './secret-store.js';
import { sessionOnlyReason } from './session-secrets.js';
import { HEADER_NAME } from '../config/schema.js';
import { isOAuthFlow } from '../config/auth-flow.js';
import type { OAuthContext } from './oauth2/context.js';
import { accessTokenFor } from './oauth2/tokens.js';
import { refuseControlCharacters } from './oauth2/token-text.js';

export interface AuthInput {
  authRef?: AuthRefRow | null;
  /** How OAuth2 refs reach their token endpoint and cache (without it, an OAuth2 ref cannot resolve). */
  oauth?: Omit<OAuthContext, 'secrets'>;
  bearerTokenEnv?: string;
  headers?: string[];
  env: NodeJS.ProcessEnv;
  secrets: SecretStore;
}

const withScheme = (scheme: string, value: string) => (scheme && scheme.toLowerCase() !== 'none' ? `${scheme} ${value}` : value);

export function parseHeaderFlag(text: string): [string, string] {
  const colon = text.indexOf(':');
  if (colon <= 0) throw authError('malformed_header', `--header must be Name:Value (got a value without a name)`);
  const name = text.slice(0, colon).trim();
  const value = text.slice(colon + 1).trim();
  if (!HEADER_NAME.test(name)) throw authError('malformed_header', `--header name "${name}" is not a valid HTTP header name`);
  if (!value || /[\r\n\0]/.test(value)) throw authError('malformed_header', `--header ${name} needs a value without CR, LF or NUL`);
  return [name, value];
}

/** The secret of an auth ref from its env var or keyring entry; `optional` returns null instead of failing when unset. */
export async function refSecret(ref: AuthRefRow, env: NodeJS.ProcessEnv, secrets: SecretStore, optional = false): Promise<string | null> {
  if (ref.kind === 'env') {
    const secret = env[ref.envVar!];
    if (secret) return secret;
    if (optional) return null;
    throw new MissiveError('auth', 'env_missing', `auth ref "${ref.name}" reads environment variable ${ref.envVar}, which is not set`, {
      help: `export ${ref.envVar}=<secret> and try again.`,
      gui: {
        help: `missive reads ${ref.envVar} from the environment it was started in: start it again with ${ref.envVar} set, or make auth ref "${ref.name}" keep its secret in missive (Settings › Auth refs › Edit).`,
      },
    });
  }
  const available = await secrets.available();
  if (!available.ok) {
    if (optional) return null;
    throw authError('keyring_unavailable', `auth ref "${ref.name}" needs the OS keyring: ${available.reason}`, KEYRING_FALLBACK_HELP);
  }
  const secret = await secrets.get(ref.keyringService!, ref.keyringAccount!);
  if (secret || optional) return secret || null;
  const setSecret: GuiHelp = {
    help: `Set the secret of auth ref "${ref.name}" with Set secret (or in Settings › Auth refs), then try again.`,
    action: { kind: 'set-secret', auth_ref: ref.name },
  };
  // The window without an OS keyring keeps secrets in its memory: after a restart they are gone, and there is no
  // keyring to look in.
  const sessionOnly = await sessionOnlyReason(secrets);
  if (sessionOnly) {
    throw new MissiveError('auth', 'keyring_unavailable', `auth ref "${ref.name}" has no secret in this session: ${sessionOnly}`, {
      help: KEYRING_FALLBACK_HELP,
      gui: {
        ...setSecret,
        help: `Set the secret of auth ref "${ref.name}" again for this session with Set secret, or make it read an environment variable (Settings › Auth refs).`,
      },
    });
  }
  throw new MissiveError(
    'auth',
    'keyring_missing',
    `auth ref "${ref.name}" has no secret in the keyring (service "${ref.keyringService}", account "${ref.keyringAccount}")`,
    { help: `Store one with: missive auth set-secret ${ref.name} (reads the secret from stdin).`, gui: setSecret },
  );
}

/** What the auth ref's flow puts on a request. */
async function applyRef(headers: AuthHeaders, ref: AuthRefRow, input: AuthInput): Promise<void> {
  const flow = ref.flow;
  if (isOAuthFlow(flow)) {
    if (!input.oauth) throw authError('oauth_unavailable', `auth ref "${ref.name}" uses ${flow.type}, which this request cannot run`);
    const secret = await refSecret(ref, input.env, input.secrets, flow.type === 'oauth2_device_code');
    if (secret) headers.addSecret(secret);
    const token = await accessTokenFor({ name: ref.name, flow }, { id: flow.client_id, secret }, { ...input.oauth, secrets: input.secrets });
    headers.set('Authorization', `Bearer ${token.access_token}`);
    return;
  }
  const secret = (await refSecret(ref, input.env, input.secrets))!;
  refuseControlCharacters(secret, `the secret of auth ref "${ref.name}"`, `Give the secret on one line (missive auth set-secret ${ref.name}, or its env var).`);
  headers.addSecret(secret);
  if (flow.type === 'basic') headers.set('Authorization', `Basic ${Buffer.from(`${flow.username}:${secret}`).toString('base64')}`);
  else if (flow.type === 'api_key' && flow.in === 'query') headers.setQuery(flow.name, secret);
  else if (flow.type === 'api_key' && flow.in === 'cookie') headers.set('Cookie', `${flow.name}=${secret}`);
  else if (flow.type === 'api_key') headers.set(flow.name, secret);
  else headers.set(ref.headerName, withScheme(ref.scheme, secret));
}

export async function resolveAuthHeaders(input: AuthInput): Promise<AuthHeaders> {
  const headers = new AuthHeaders();
  if (input.authRef) await applyRef(headers, input.authRef, input);
  if (input.bearerTokenEnv) {
    const token = input.env[input.bearerTokenEnv];
    if (!token) throw authError('env_missing', `--bearer-token-env ${input.bearerTokenEnv} is not set in the environment`);
    refuseControlCharacters(token, `--bearer-token-env ${input.bearerTokenEnv}`, `Set ${input.bearerTokenEnv} to the token alone, on one line.`);
    headers.set('Authorization', `Bearer ${token}`);
  }
  for (const text of input.headers ?? []) {
    const [name, value] = parseHeaderFlag(text);
    headers.set(name, value);
  }
  return headers;
}
