/**
 * Resolves auth material into headers, in one place for every outbound request:
 * agent auth ref → --bearer-token-env → --header (a later header of the same name replaces an earlier one).
 * Everything missing fails here, before any request is sent (exit 77).
 */
import { authError } from '../../../shared/errors.js';
import type { AuthRefRow } from '../store/repos/auth-refs.js';
import { AuthHeaders } from './auth-headers.js';
import { KEYRING_FALLBACK_HELP, type SecretStore } from './secret-store.js';
import { HEADER_NAME } from '../config/schema.js';

export interface AuthInput {
  authRef?: AuthRefRow | null;
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

export async function resolveAuthHeaders(input: AuthInput): Promise<AuthHeaders> {
  const headers = new AuthHeaders();
  const ref = input.authRef;
  if (ref) {
    let secret: string | null | undefined;
    if (ref.kind === 'env') {
      secret = input.env[ref.envVar!];
      if (!secret) {
        throw authError('env_missing', `auth ref "${ref.name}" reads environment variable ${ref.envVar}, which is not set`, `export ${ref.envVar}=<token> and try again.`);
      }
    } else {
      const available = await input.secrets.available();
      if (!available.ok) throw authError('keyring_unavailable', `auth ref "${ref.name}" needs the OS keyring: ${available.reason}`, KEYRING_FALLBACK_HELP);
      secret = await input.secrets.get(ref.keyringService!, ref.keyringAccount!);
      if (!secret) {
        throw authError(
          'keyring_missing',
          `auth ref "${ref.name}" has no secret in the keyring (service "${ref.keyringService}", account "${ref.keyringAccount}")`,
          `Store one with: missive auth set-secret ${ref.name} (reads the secret from stdin).`,
        );
      }
    }
    headers.set(ref.headerName, withScheme(ref.scheme, secret));
  }
  if (input.bearerTokenEnv) {
    const token = input.env[input.bearerTokenEnv];
    if (!token) throw authError('env_missing', `--bearer-token-env ${input.bearerTokenEnv} is not set in the environment`);
    headers.set('Authorization', `Bearer ${token}`);
  }
  for (const text of input.headers ?? []) {
    const [name, value] = parseHeaderFlag(text);
    headers.set(name, value);
  }
  return headers;
}
