/**
 * The security schemes an agent registered without credentials would have to satisfy: what `agent add` and the
 * window's Register warn about (naming the scheme), and what the window's one-click "add an auth ref" sets up.
 * Isomorphic: the core's and the renderer's views of a card's security both fit `SecurityLike`.
 */

/** One declared scheme, as core/a2a/security-schemes.ts `SchemeView` (and the IPC contract's copy) has it. */
export interface SchemeLike {
  name: string;
  type: string;
  http_scheme?: string | null;
  in?: string | null;
  param_name?: string | null;
  flows?: ReadonlyArray<{ flow: string; token_url?: string | null; device_authorization_url?: string | null }>;
}

export interface SecurityLike<S extends SchemeLike = SchemeLike> {
  schemes: readonly S[];
  requirements: ReadonlyArray<{ schemes: ReadonlyArray<{ name: string }> }>;
}

/**
 * The schemes one alternative of the card asks for: its first requirement whose schemes it all declares, or, when it
 * states no requirement, its first declared scheme. Empty when the card declares no scheme at all.
 */
export function requiredSchemes<S extends SchemeLike>(security: SecurityLike<S>): S[] {
  const byName = new Map(security.schemes.map((s) => [s.name, s]));
  for (const requirement of security.requirements) {
    const schemes = requirement.schemes.map((s) => byName.get(s.name));
    if (schemes.length && schemes.every((s) => s !== undefined)) return schemes as S[];
  }
  return security.requirements.length === 0 && security.schemes[0] ? [security.schemes[0]] : [];
}

/** What a scheme asks for, in a few words that redaction leaves alone: `HTTP bearer token`, `API key in header X-Key`. */
export function schemeAsks(scheme: SchemeLike): string {
  switch (scheme.type) {
    case 'http':
      return scheme.http_scheme === 'basic' ? 'HTTP basic (user name and password)' : `HTTP ${scheme.http_scheme ?? 'auth'} token`;
    case 'api_key':
      return `API key in ${scheme.in ?? 'a header'}${scheme.param_name ? ` ${scheme.param_name}` : ''}`;
    case 'oauth2':
      return 'an OAuth2 access token';
    case 'openid_connect':
      return 'an OpenID Connect access token';
    case 'mtls':
      return 'a client certificate';
    default:
      return 'a scheme missive does not know';
  }
}

/** `"bearer" (HTTP bearer token)` and `"key" (API key in header X-Key)`: the schemes as the warnings name them. */
export const schemeList = (schemes: readonly SchemeLike[]) => schemes.map((s) => `"${s.name}" (${schemeAsks(s)})`).join(' and ');

/** The warning of a registration with no credentials for a card that requires some (null when it requires none). */
export function authNeededWarning(alias: string, security: SecurityLike): string | null {
  const schemes = requiredSchemes(security);
  if (schemes.length === 0) return null;
  return `the card of "${alias}" requires security scheme ${schemeList(schemes)}, and "${alias}" is registered with Authentication: None: its calls will be refused`;
}
