/**
 * The security an Agent Card declares, as a plain view: its `securitySchemes` (HTTP bearer / basic, API key in a
 * header, query parameter or cookie, OAuth2 with every flow and its URLs, OpenID Connect, mutual TLS) and its
 * requirements (v1.0 `securityRequirements`, v0.3 `security`). Read from the card's JSON in any shape met in practice
 * (v1.0 `{ httpAuthSecurityScheme: {...} }`, the SDK server's `{ scheme: { $case, value } }`, v0.3
 * `{ type: "http", ... }`), camelCase or snake_case, rather than from the SDK's typed card, which keeps only one
 * OAuth2 flow per scheme. Values are outside text: each is one line, length-capped.
 */
import { oneLine } from './remote-text.js';

export type SchemeType = 'http' | 'api_key' | 'oauth2' | 'openid_connect' | 'mtls' | 'unknown';

export type OAuthFlowName = 'client_credentials' | 'device_code' | 'authorization_code' | 'implicit' | 'password';

export interface OAuthFlowView {
  flow: OAuthFlowName;
  token_url: string | null;
  authorization_url: string | null;
  device_authorization_url: string | null;
  refresh_url: string | null;
  scopes: string[];
}

/** One declared scheme; fields that do not apply to its type are null (or empty). */
export interface SchemeView {
  /** The scheme's name in the card (what requirements refer to). */
  name: string;
  type: SchemeType;
  description: string | null;
  /** http: the HTTP auth scheme, lower-case (`bearer`, `basic`, …). */
  http_scheme: string | null;
  bearer_format: string | null;
  /** api_key: where the key goes and under which name. */
  in: 'header' | 'query' | 'cookie' | null;
  param_name: string | null;
  /** oauth2: every flow the card lists, and the RFC 8414 metadata URL. */
  flows: OAuthFlowView[];
  oauth2_metadata_url: string | null;
  /** openid_connect: the discovery URL. */
  openid_connect_url: string | null;
}

/** One alternative the agent accepts: all of its schemes together (with their scopes). */
export interface RequirementView {
  schemes: Array<{ name: string; scopes: string[] }>;
}

export interface SecurityView {
  schemes: SchemeView[];
  /** Alternatives: any one of them satisfies the agent. Empty when the card states none. */
  requirements: RequirementView[];
}

type Json = Record<string, unknown>;

const MAX_TEXT = 300;
const MAX_ITEMS = 64;

const isObject = (value: unknown): value is Json => !!value && typeof value === 'object' && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? oneLine(value, MAX_TEXT) : null);
/** The first own field present under any of `names` (camelCase and snake_case spellings). */
const field = (object: Json, ...names: string[]): unknown => {
  for (const name of names) if (Object.hasOwn(object, name)) return object[name];
  return undefined;
};
const entries = (value: unknown): Array<[string, unknown]> => (isObject(value) ? Object.entries(value).slice(0, MAX_ITEMS) : []);
const strings = (value: unknown): string[] =>
  (Array.isArray(value) ? value : isObject(value) && Array.isArray(value.list) ? value.list : [])
    .slice(0, MAX_ITEMS)
    .map(text)
    .filter((s): s is string => s !== null);

const FLOW_NAMES: Record<string, OAuthFlowName> = {
  clientCredentials: 'client_credentials',
  client_credentials: 'client_credentials',
  deviceCode: 'device_code',
  device_code: 'device_code',
  authorizationCode: 'authorization_code',
  authorization_code: 'authorization_code',
  implicit: 'implicit',
  password: 'password',
};

function flowsOf(flows: unknown): OAuthFlowView[] {
  const out: OAuthFlowView[] = [];
  const typed = isObject(flows) ? unwrapOneof(flows.flow) : null;
  for (const [key, value] of entries(typed ?? flows)) {
    const flow = FLOW_NAMES[key];
    if (!flow || !isObject(value)) continue;
    out.push({
      flow,
      token_url: text(field(value, 'tokenUrl', 'token_url')),
      authorization_url: text(field(value, 'authorizationUrl', 'authorization_url')),
      device_authorization_url: text(field(value, 'deviceAuthorizationUrl', 'device_authorization_url')),
      refresh_url: text(field(value, 'refreshUrl', 'refresh_url')),
      scopes: entries(field(value, 'scopes')).map(([scope]) => oneLine(scope, MAX_TEXT)),
    });
  }
  return out;
}

const API_KEY_PLACES = new Set(['header', 'query', 'cookie']);

const blank = (name: string, type: SchemeType, body: Json): SchemeView => ({
  name,
  type,
  description: text(body.description),
  http_scheme: null,
  bearer_format: null,
  in: null,
  param_name: null,
  flows: [],
  oauth2_metadata_url: null,
  openid_connect_url: null,
});

/** v1.0 JSON names the kind by a wrapper key; v0.3 (OpenAPI) by `type`. */
const V1_KINDS: Array<[SchemeType, string[]]> = [
  ['http', ['httpAuthSecurityScheme', 'http_auth_security_scheme']],
  ['api_key', ['apiKeySecurityScheme', 'api_key_security_scheme']],
  ['oauth2', ['oauth2SecurityScheme', 'oauth2_security_scheme']],
  ['openid_connect', ['openIdConnectSecurityScheme', 'open_id_connect_security_scheme']],
  ['mtls', ['mtlsSecurityScheme', 'mtls_security_scheme']],
];

const V03_TYPES: Record<string, SchemeType> = { http: 'http', apikey: 'api_key', oauth2: 'oauth2', openidconnect: 'openid_connect', mutualtls: 'mtls' };

/**
 * The SDK's typed oneof, `{ $case: "x", value: {...} }`, as the JSON object `{ x: {...} }` (the SDK's own server
 * serialises cards with the typed shape: `securitySchemes.<name>.scheme` and `flows.flow` arrive like that).
 */
function unwrapOneof(value: unknown): Json | null {
  if (!isObject(value) || typeof value.$case !== 'string' || !isObject(value.value)) return null;
  return { [value.$case]: value.value };
}

function kindOf(raw: Json): { type: SchemeType; body: Json } {
  const scheme = unwrapOneof(raw.scheme) ?? raw;
  for (const [type, keys] of V1_KINDS) {
    const body = field(scheme, ...keys);
    if (isObject(body)) return { type, body };
  }
  const declared = typeof scheme.type === 'string' ? V03_TYPES[scheme.type.toLowerCase()] : undefined;
  return { type: declared ?? 'unknown', body: scheme };
}

function schemeOf(name: string, scheme: unknown): SchemeView {
  const { type, body } = kindOf(isObject(scheme) ? scheme : {});
  const view = blank(oneLine(name, MAX_TEXT), type, body);
  if (type === 'http') {
    view.http_scheme = text(body.scheme)?.toLowerCase() ?? null;
    view.bearer_format = text(field(body, 'bearerFormat', 'bearer_format'));
  } else if (type === 'api_key') {
    const place = text(field(body, 'location', 'in'))?.toLowerCase();
    view.in = place && API_KEY_PLACES.has(place) ? (place as SchemeView['in']) : null;
    view.param_name = text(body.name);
  } else if (type === 'oauth2') {
    view.flows = flowsOf(body.flows);
    view.oauth2_metadata_url = text(field(body, 'oauth2MetadataUrl', 'oauth2_metadata_url'));
  } else if (type === 'openid_connect') {
    view.openid_connect_url = text(field(body, 'openIdConnectUrl', 'open_id_connect_url'));
  }
  return view;
}

/** v1.0: `[{ schemes: { name: { list: [scopes] } } }]`; v0.3: `[{ name: [scopes] }]`. */
function requirementOf(requirement: unknown): RequirementView {
  const map = isObject(requirement) && isObject(requirement.schemes) ? requirement.schemes : requirement;
  return { schemes: entries(map).map(([name, scopes]) => ({ name: oneLine(name, MAX_TEXT), scopes: strings(scopes) })) };
}

/** The card's JSON: a ParsedCard's `wire`, or the raw card itself. */
const cardJson = (card: unknown): Json => {
  if (isObject(card) && isObject(card.wire) && 'typed' in card) return card.wire;
  return isObject(card) ? card : {};
};

/**
 * The security a card declares. Pass the raw card JSON when you have it (every OAuth2 flow is kept); a ParsedCard
 * works too (its v1.0 JSON, in which the SDK's translation of a v0.3 card kept one flow per OAuth2 scheme).
 */
export function securitySchemesOf(card: unknown): SecurityView {
  const json = cardJson(card);
  const schemes = entries(field(json, 'securitySchemes', 'security_schemes')).map(([name, scheme]) => schemeOf(name, scheme));
  const declared = field(json, 'securityRequirements', 'security_requirements', 'security');
  const requirements = (Array.isArray(declared) ? declared.slice(0, MAX_ITEMS) : []).map(requirementOf).filter((r) => r.schemes.length > 0);
  return { schemes, requirements };
}

const FLOW_LABEL: Record<OAuthFlowName, string> = {
  client_credentials: 'client credentials',
  device_code: 'device code',
  authorization_code: 'authorization code',
  implicit: 'implicit',
  password: 'password',
};

/** One scheme in a few words (no space right after `Bearer`, which redaction would blank): `HTTP Bearer, format JWT`, `API key in header X-API-Key`, `OAuth2 client credentials (token URL …)`. */
export function describeScheme(scheme: SchemeView): string {
  switch (scheme.type) {
    case 'http': {
      const name = scheme.http_scheme === 'bearer' ? 'Bearer' : scheme.http_scheme === 'basic' ? 'Basic' : (scheme.http_scheme ?? '?');
      return `HTTP ${name}${scheme.bearer_format ? `, format ${scheme.bearer_format}` : ''}`;
    }
    case 'api_key':
      return `API key in ${scheme.in ?? 'an unstated place'}${scheme.param_name ? ` ${scheme.param_name}` : ''}`;
    case 'oauth2': {
      const flows = scheme.flows.map((f) => `${FLOW_LABEL[f.flow]}${f.token_url ? ` (token URL ${f.token_url})` : ''}`);
      return `OAuth2 ${flows.length ? flows.join(', ') : 'with no flow listed'}${scheme.oauth2_metadata_url ? `, metadata ${scheme.oauth2_metadata_url}` : ''}`;
    }
    case 'openid_connect':
      return `OpenID Connect${scheme.openid_connect_url ? ` (${scheme.openid_connect_url})` : ''}`;
    case 'mtls':
      return 'mutual TLS (a client certificate)';
    default:
      return 'a scheme missive does not know';
  }
}

/** A requirement in a few words: `bearer` or `oauth (scopes read, write) + key`. */
export const describeRequirement = (requirement: RequirementView): string =>
  requirement.schemes.map((s) => `${s.name}${s.scopes.length ? ` (scopes ${s.scopes.join(', ')})` : ''}`).join(' + ');
