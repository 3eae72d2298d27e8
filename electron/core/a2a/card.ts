/**
 * Agent Card parsing. A small compatibility layer normalises known snake_case aliases; v0.3 cards (`url`,
 * `preferredTransport`, `additionalInterfaces`, card-level `protocolVersion`) and v0.2 cards (`url` only) are
 * translated to the v1.0 shape by the SDK's own compat code; v1.0 cards without `supportedInterfaces` get an empty
 * list. Then zod checks the fields missive relies on, and the official SDK codec (`AgentCard.fromJSON`) gives the
 * typed value. The raw JSON is kept beside it, untouched.
 */
import { AgentCard } from '@a2a-js/sdk';
import { isLegacyAgentCard, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { z } from 'zod';
import { protocolError } from '../../../shared/errors.js';
import { parseBoundedJson } from '../security/json-depth.js';
import type { CardFormat } from './dialect.js';
import { oneLine } from './remote-text.js';
import { canonicalBinding } from './binding-names.js';

const SNAKE_ALIASES: Record<string, string> = {
  supported_interfaces: 'supportedInterfaces',
  protocol_binding: 'protocolBinding',
  protocol_version: 'protocolVersion',
  protocol_versions: 'protocolVersions',
  default_input_modes: 'defaultInputModes',
  default_output_modes: 'defaultOutputModes',
  input_modes: 'inputModes',
  output_modes: 'outputModes',
  push_notifications: 'pushNotifications',
  state_transition_history: 'stateTransitionHistory',
  extended_agent_card: 'extendedAgentCard',
  documentation_url: 'documentationUrl',
  icon_url: 'iconUrl',
  security_schemes: 'securitySchemes',
  security_requirements: 'securityRequirements',
  preferred_transport: 'preferredTransport',
  additional_interfaces: 'additionalInterfaces',
  supports_authenticated_extended_card: 'supportsAuthenticatedExtendedCard',
};

/**
 * A copy with snake_case aliases renamed. Lookups are own-property only, so keys such as `constructor` keep their
 * name; every key is defined, never assigned, so a `__proto__` key stays an own key as JSON.parse made it (inside an
 * extension's value it is data like any other) and never sets the copy's prototype. The card's zod check leaves
 * `__proto__` out of the card's own fields.
 */
function normaliseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normaliseKeys);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const name = Object.hasOwn(SNAKE_ALIASES, key) ? SNAKE_ALIASES[key]! : key;
    if (!Object.hasOwn(out, name)) Object.defineProperty(out, name, { value: normaliseKeys(inner), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

const wireInterface = z.looseObject({
  url: z.string().min(1),
  protocolBinding: z.string().min(1),
  protocolVersion: z.string().optional(),
  tenant: z.string().optional(),
});

const wireCard = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  version: z.string().optional(),
  supportedInterfaces: z.array(wireInterface),
  capabilities: z.looseObject({ streaming: z.boolean().optional(), pushNotifications: z.boolean().optional() }).optional(),
  defaultInputModes: z.array(z.string()).optional(),
  defaultOutputModes: z.array(z.string()).optional(),
  skills: z.array(z.looseObject({ id: z.string(), name: z.string().optional(), tags: z.array(z.string()).optional() })).optional(),
});

export type WireCard = z.infer<typeof wireCard>;

export interface ParsedCard {
  /** The card as missive reads it (compat-normalised). */
  wire: WireCard;
  /** The official SDK value. */
  typed: AgentCard;
  /** True when the card did not list supportedInterfaces (older/pre-release cards). */
  interfacesMissing: boolean;
  /** The card's generation, by its shape. */
  format: CardFormat;
  /** The protocol version the card declares for itself (card-level `protocolVersion` of v0.3 cards), else null. */
  declaredVersion: string | null;
}

/** The card's JSON; a card nested deeper than MAX_JSON_DEPTH is refused (too_deeply_nested, exit 76). */
export function parseCardText(text: string, where: string): unknown {
  return parseBoundedJson(text, `the Agent Card at ${where}`, (error) => {
    throw protocolError('invalid_card_json', `the Agent Card at ${where} is not valid JSON: ${error.message}`);
  });
}

const array = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** v0.3 when the card names a 0.3 version or v0.3-only fields; v0.2 when it has only a `url` (or says 0.2). */
function legacyFormat(card: Record<string, unknown>): CardFormat {
  const version = typeof card.protocolVersion === 'string' ? card.protocolVersion : null;
  if (version) return /^\s*v?0\.[0-2](?:\D|$)/.test(version) ? '0.2' : '0.3';
  return 'preferredTransport' in card || 'additionalInterfaces' in card ? '0.3' : '0.2';
}

/**
 * A v0.3/v0.2 card in the v1.0 shape, through the SDK's translator. Fields real older agents often leave out
 * (modes, skills, skill tags, capabilities) default to empty rather than rejecting the card; every interface is
 * stamped with the version the card declares, and duplicates of the primary URL collapse.
 */
function translateLegacy(card: Record<string, unknown>, where: string): { json: Record<string, unknown>; format: CardFormat; declared: string | null } {
  const format = legacyFormat(card);
  const declared = typeof card.protocolVersion === 'string' && card.protocolVersion.trim() ? card.protocolVersion.trim() : null;
  const lenient = {
    ...card,
    capabilities: card.capabilities && typeof card.capabilities === 'object' ? card.capabilities : {},
    defaultInputModes: array(card.defaultInputModes),
    defaultOutputModes: array(card.defaultOutputModes),
    skills: array(card.skills).map((skill) => (skill && typeof skill === 'object' ? { ...skill, tags: array((skill as { tags?: unknown }).tags) } : skill)),
    additionalInterfaces: array(card.additionalInterfaces).filter((i) => i && typeof i === 'object' && typeof (i as { url?: unknown }).url === 'string'),
  };
  let json: Record<string, unknown>;
  try {
    json = AgentCard.toJSON(parseLegacyAgentCard(lenient)) as Record<string, unknown>;
  } catch (error) {
    throw protocolError('invalid_card', `the v${format} Agent Card at ${where} cannot be read: ${oneLine((error as Error).message)}`);
  }
  const version = declared ?? (format === '0.2' ? '0.2' : '0.3');
  const seen = new Set<string>();
  json.supportedInterfaces = array(json.supportedInterfaces)
    .map((i): Record<string, unknown> => ({ ...(i as Record<string, unknown>), protocolVersion: version }))
    .filter((i) => {
      // JSON, not String(): a hostile card's url may be an object that cannot be turned into text (the zod check
      // that follows refuses it as invalid_card).
      const key = JSON.stringify([canonicalBinding(typeof i.protocolBinding === 'string' ? i.protocolBinding : ''), i.url ?? null]);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  return { json, format, declared };
}

export function parseCard(raw: unknown, where = 'the cached card'): ParsedCard {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw protocolError('invalid_card', `the Agent Card at ${where} is not a JSON object`);
  }
  let normalised = normaliseKeys(raw) as Record<string, unknown>;
  let format: CardFormat = '1.0';
  let declaredVersion: string | null = null;
  if (isLegacyAgentCard(normalised)) {
    const legacy = translateLegacy(normalised, where);
    ({ json: normalised, format, declared: declaredVersion } = legacy);
  } else if (typeof normalised.protocolVersion === 'string') {
    declaredVersion = normalised.protocolVersion;
  }
  const interfacesMissing = normalised.supportedInterfaces === undefined || normalised.supportedInterfaces === null;
  if (interfacesMissing) normalised.supportedInterfaces = [];
  const result = wireCard.safeParse(normalised);
  if (!result.success) {
    const issues = result.error.issues.map((i) => `${i.path.join('.') || '(card)'}: ${i.message}`).join('; ');
    throw protocolError('invalid_card', `the Agent Card at ${where} does not match A2A v${format}: ${issues}`);
  }
  let typed: AgentCard;
  try {
    typed = AgentCard.fromJSON(normalised);
  } catch (error) {
    throw protocolError('invalid_card', `the Agent Card at ${where} cannot be decoded: ${(error as Error).message}`);
  }
  return { wire: result.data, typed, interfacesMissing, format, declaredVersion };
}

/** Where A2A ≥ 0.3 serves the card. */
export const cardUrl = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, '')}/.well-known/agent-card.json`;
/** Where A2A 0.2 agents serve it: tried when the first answers 404. */
export const legacyCardUrl = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, '')}/.well-known/agent.json`;
