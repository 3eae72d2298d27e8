/**
 * Agent Card parsing. A small compatibility layer normalises known snake_case aliases and inserts an empty
 * `supportedInterfaces` for older cards, then zod checks the fields missive relies on, and the official SDK codec
 * (`AgentCard.fromJSON`) gives the typed value. The raw JSON is kept beside it.
 */
import { AgentCard } from '@a2a-js/sdk';
import { z } from 'zod';
import { protocolError } from '../../../shared/errors.js';

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
};

function normaliseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normaliseKeys);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const name = SNAKE_ALIASES[key] ?? key;
    if (!(name in out)) out[name] = normaliseKeys(inner);
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
  capabilities: z
    .looseObject({ streaming: z.boolean().optional(), pushNotifications: z.boolean().optional() })
    .optional(),
  defaultInputModes: z.array(z.string()).optional(),
  defaultOutputModes: z.array(z.string()).optional(),
  skills: z
    .array(z.looseObject({ id: z.string(), name: z.string().optional(), tags: z.array(z.string()).optional() }))
    .optional(),
});

export type WireCard = z.infer<typeof wireCard>;

export interface ParsedCard {
  /** The card as missive reads it (compat-normalised). */
  wire: WireCard;
  /** The official SDK value. */
  typed: AgentCard;
  /** True when the card did not list supportedInterfaces (older/pre-release cards). */
  interfacesMissing: boolean;
}

export function parseCardText(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw protocolError('invalid_card_json', `the Agent Card at ${where} is not valid JSON: ${(error as Error).message}`);
  }
}

export function parseCard(raw: unknown, where = 'the cached card'): ParsedCard {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw protocolError('invalid_card', `the Agent Card at ${where} is not a JSON object`);
  }
  const normalised = normaliseKeys(raw) as Record<string, unknown>;
  const interfacesMissing = normalised.supportedInterfaces === undefined || normalised.supportedInterfaces === null;
  if (interfacesMissing) normalised.supportedInterfaces = [];
  const result = wireCard.safeParse(normalised);
  if (!result.success) {
    const issues = result.error.issues.map((i) => `${i.path.join('.') || '(card)'}: ${i.message}`).join('; ');
    throw protocolError('invalid_card', `the Agent Card at ${where} does not match A2A v1.0: ${issues}`);
  }
  let typed: AgentCard;
  try {
    typed = AgentCard.fromJSON(normalised);
  } catch (error) {
    throw protocolError('invalid_card', `the Agent Card at ${where} cannot be decoded: ${(error as Error).message}`);
  }
  return { wire: result.data, typed, interfacesMissing };
}

export const cardUrl = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, '')}/.well-known/agent-card.json`;
