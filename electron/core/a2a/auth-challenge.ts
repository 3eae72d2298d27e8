/**
 * A 401 or 403 from an agent, on any wire, as an auth error (exit 77): `missive::auth::unauthorized` (401) or
 * `missive::auth::forbidden` (403). The message names the URL; the help names the scheme the agent asked for in
 * `WWW-Authenticate`, the schemes its card declares, and the next command. The header is outside text: parsed into
 * schemes and a few parameters, each one line and length-capped. Scheme names are quoted in the text because the
 * output layer's redaction blanks whatever follows a bare `Bearer ` or `Basic `.
 */
import { authError, type MissiveError } from '../../../shared/errors.js';
import { redactText, redactUrl } from '../security/redact.js';
import { oneLine } from './remote-text.js';
import { describeScheme, type SchemeView } from './security-schemes.js';

/** What a call knows about the agent's auth, for the help of a 401/403 (set by `connect`). */
export interface AuthHint {
  /** The schemes the agent's card declares. */
  declared?: readonly SchemeView[];
  /** The auth ref the agent is registered with, if any. */
  authRef?: string | null;
  /** What authenticated the request, by name (`auth ref "prod"`, `--bearer-token-env`); empty when nothing was sent. */
  sent?: readonly string[];
}

export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

const MAX_CHALLENGES = 8;
const MAX_PARAM = 80;
const TOKEN = /[!#$%&'*+.^_`|~0-9A-Za-z-]/;

/** RFC 7235 challenges: `Bearer realm="a2a", error="invalid_token", Basic realm="x"`; token68 values are skipped. */
export function parseWwwAuthenticate(header: string | undefined): Challenge[] {
  const text = (header ?? '').slice(0, 4096);
  const out: Challenge[] = [];
  let i = 0;
  const skip = (chars: RegExp) => {
    while (i < text.length && chars.test(text[i]!)) i++;
  };
  const token = () => {
    const start = i;
    while (i < text.length && TOKEN.test(text[i]!)) i++;
    return text.slice(start, i);
  };
  const quoted = () => {
    let value = '';
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\' && i + 1 < text.length) i++;
      value += text[i++];
    }
    i++;
    return value;
  };
  while (i < text.length && out.length < MAX_CHALLENGES) {
    skip(/[\s,]/);
    const name = token();
    if (!name) {
      i++;
      continue;
    }
    skip(/[ \t]/);
    if (text[i] === '=') {
      const start = i;
      skip(/=/);
      const equals = i - start;
      skip(/[ \t]/);
      const current = out.at(-1);
      // `name==` (or `name=` followed by a comma or the end) is a token68; otherwise `name=value` is a parameter.
      if (i >= text.length || text[i] === ',' || equals > 1) continue;
      const value = text[i] === '"' ? quoted() : token();
      const key = name.toLowerCase();
      if (current && key !== '__proto__') current.params[key] = oneLine(value, MAX_PARAM);
      continue;
    }
    out.push({ scheme: oneLine(name, 40), params: {} });
  }
  return out;
}

const quote = (value: string) => `"${value.replace(/"/g, "'")}"`;

/** ` (realm "a2a", error "invalid_token")`: the parameters worth showing, or nothing. */
function paramsText(challenge: Challenge): string {
  const params = ['realm', 'scope', 'error', 'error_description'].filter((p) => challenge.params[p]).map((p) => `${p} ${quote(challenge.params[p]!)}`);
  return params.length ? ` (${params.join(', ')})` : '';
}

/** `"Bearer" (realm "a2a")`: a challenge as safe one-line text. */
const challengeText = (challenge: Challenge): string => `${quote(challenge.scheme)}${paramsText(challenge)}`;

/** What the agent asks for, in words: `a "Bearer" token (realm "a2a")`. */
function askedText(challenge: Challenge): string {
  const scheme = challenge.scheme.toLowerCase();
  const what =
    scheme === 'bearer'
      ? `a ${quote('Bearer')} token`
      : scheme === 'basic'
        ? `a user name and password (${quote('Basic')})`
        : `${quote(challenge.scheme)} credentials`;
  return `${what}${paramsText(challenge)}`;
}

/** The declared scheme the challenge points at (a Bearer challenge: HTTP bearer, else OAuth2, else OpenID Connect), else the first declared. */
function targetScheme(challenges: Challenge[], declared: readonly SchemeView[]): SchemeView | undefined {
  const asked = challenges[0]?.scheme.toLowerCase();
  if (asked === 'basic') return declared.find((s) => s.type === 'http' && s.http_scheme === 'basic');
  if (asked === 'bearer') {
    return (
      declared.find((s) => s.type === 'http' && s.http_scheme === 'bearer') ??
      declared.find((s) => s.type === 'oauth2') ??
      declared.find((s) => s.type === 'openid_connect')
    );
  }
  return declared[0];
}

const OIDC_SUFFIX = /\/\.well-known\/openid-configuration\/?$/;

/** The `missive auth add` that makes an auth ref for what the agent asked for or its card declares (and what follows it). */
function authAddCommand(challenges: Challenge[], declared: readonly SchemeView[], agent: string): string {
  const scheme = targetScheme(challenges, declared);
  const env = '--env <VAR>';
  if (scheme?.type === 'api_key')
    return `missive auth add <name> --flow api_key --in ${scheme.in ?? 'header'} --key-name ${scheme.param_name ?? '<name>'} ${env}`;
  if (scheme?.type === 'oauth2') {
    const device = scheme.flows.find((f) => f.flow === 'device_code');
    const client = scheme.flows.find((f) => f.flow === 'client_credentials');
    if (client || !device)
      return `missive auth add <name> --flow oauth2_client_credentials --token-url ${client?.token_url ?? '<url>'} --client-id <id> ${env}`;
    return `missive auth add <name> --flow oauth2_device_code --device-authorization-url ${device.device_authorization_url ?? '<url>'} --token-url ${device.token_url ?? '<url>'} --client-id <id>, then missive auth login ${agent}`;
  }
  if (scheme?.type === 'openid_connect')
    return `missive auth add <name> --flow oauth2_client_credentials --issuer ${scheme.openid_connect_url?.replace(OIDC_SUFFIX, '') ?? '<url>'} --client-id <id> ${env}`;
  if (scheme?.type === 'mtls') return `a client certificate: missive agent set ${agent} --client-cert <file> --client-key <file>`;
  const basic = challenges[0]?.scheme.toLowerCase() === 'basic' || (scheme?.type === 'http' && scheme.http_scheme === 'basic');
  // `--flow basic` last: redaction would blank the word after a bare `basic `.
  if (basic) return `missive auth add <name> --username <user> ${env} --flow basic`;
  return `missive auth add <name> ${env} (or --keyring-service S --keyring-account A)`;
}

function nextStep(status: 401 | 403, challenges: Challenge[], hint: AuthHint, alias: string | undefined): string {
  const sent = hint.sent ?? [];
  const agent = alias ?? '<alias>';
  if (status === 403) {
    return `${sent.length ? `the agent refused the credentials sent (${sent.join(', ')}) for this operation` : 'the agent refused this operation and no credentials were sent'}: check that they carry the rights or scopes it needs`;
  }
  if (sent.length) {
    const ref = hint.authRef;
    return `the credentials sent (${sent.join(', ')}) were not accepted: ${ref ? `replace the secret (missive auth set-secret ${ref}, or the env var the ref names)` : 'check the token or header you passed'}`;
  }
  const command = authAddCommand(challenges, hint.declared ?? [], agent);
  if (command.startsWith('a client certificate')) return `no credentials were sent: the agent asks for ${command}`;
  return `no credentials were sent: add an auth ref with ${command}, then give it to the agent (missive agent set ${agent} --auth-ref <name>, or auth_ref in [agents.${agent}] of the config)`;
}

export interface AuthRejection {
  status: number;
  /** The operation or request (`SendMessage`, `Agent Card request`). */
  what: string;
  url: string;
  /** The answer's headers, lower-cased names (`www-authenticate`). */
  headers: Record<string, string | string[] | undefined>;
  /** A short detail from the answer's body, already one line. */
  detail?: string;
  alias?: string;
  hint?: AuthHint;
  secrets?: readonly string[];
  /** The refusal came as a gRPC status (UNAUTHENTICATED for 401, PERMISSION_DENIED for 403), not an HTTP one. */
  grpc?: boolean;
}

export const isAuthStatus = (status: number): status is 401 | 403 => status === 401 || status === 403;

/** The auth error for a 401/403 answer (call only with one of those statuses). */
export function authRejectedError(r: AuthRejection): MissiveError {
  const status = r.status === 403 ? 403 : 401;
  const raw = r.headers['www-authenticate'];
  const challenges = parseWwwAuthenticate(Array.isArray(raw) ? raw.join(', ') : raw);
  const hint = r.hint ?? {};
  const declared = hint.declared ?? [];
  const detail = r.detail ? redactText(oneLine(r.detail), r.secrets) : '';
  const asks = challenges.length ? ` (WWW-Authenticate: ${challenges.map(challengeText).join('; ')})` : '';
  const answered = r.grpc
    ? `was refused with gRPC ${status === 401 ? 'UNAUTHENTICATED' : 'PERMISSION_DENIED'}`
    : `answered HTTP ${status} ${status === 401 ? 'Unauthorized' : 'Forbidden'}`;
  const message = `${r.what} at ${redactUrl(r.url)} ${answered}${detail ? `: ${detail}` : ''}${asks}`;
  const help: string[] = [];
  if (challenges.length) help.push(`the agent asks for ${challenges.map(askedText).join(' or ')}`);
  if (declared.length) help.push(`its card declares ${declared.map((s) => `${s.name}: ${describeScheme(s)}`).join('; ')}`);
  help.push(nextStep(status, challenges, hint, r.alias));
  return authError(status === 401 ? 'unauthorized' : 'forbidden', message, `${help.map((h) => h.charAt(0).toUpperCase() + h.slice(1)).join('. ')}.`);
}
