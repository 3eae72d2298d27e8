/**
 * GetExtendedAgentCard: the fuller card an agent gives authenticated clients, for agents whose public card advertises
 * it (`capabilities.extendedAgentCard`; v0.3 `supportsAuthenticatedExtendedCard`, which the SDK translates to it). The
 * call goes through `connect` like any other: negotiated interface, the agent's auth pinned to its origin, and the
 * signed-card policy checked on the public card before anything is sent. The answer is shown, not stored.
 */
import type { Core } from '../handle.js';
import type { Binding } from '../config/schema.js';
import { usageError } from '../../../shared/errors.js';
import type { ParsedCard } from '../a2a/card.js';
import type { SignatureView } from '../a2a/card-signature.js';
import type { WireCapture } from '../a2a/wire.js';
import { redactValue } from '../security/redact.js';
import { connect } from './connection.js';
import { inspectAgent, type CardResult, type InspectView } from './discovery.js';
import { refuseUntrusted, requiresSignedCard, signatureOf } from './card-trust.js';

export interface ExtendedCardView {
  /** The interface that answered. */
  interface: { binding: string; url: string; dialect: string };
  card: {
    name: string;
    description: string | null;
    version: string | null;
    capabilities: Record<string, unknown>;
    supported_interfaces: Array<{ protocol_binding: string; url: string; protocol_version: string | null }>;
    skills: Array<{ id: string; name?: string }>;
    security_schemes: unknown;
  };
  /** Skill ids the extended card lists and the public card does not. */
  added_skills: string[];
  signature: SignatureView;
  raw_card: unknown;
}

/** Whether the card says the agent serves an extended card. */
export const advertisesExtendedCard = (card: ParsedCard): boolean => card.typed.capabilities?.extendedAgentCard === true;

function requireAdvertised(result: CardResult): void {
  if (advertisesExtendedCard(result.card)) return;
  const alias = result.agent.alias;
  throw usageError(
    'extended_card_not_advertised',
    `the Agent Card of "${alias}" does not advertise an extended card (capabilities.extendedAgentCard)`,
    `Refresh the cached card if the agent has changed: missive agent refresh ${alias}`,
  );
}

const skillIds = (card: ParsedCard): string[] => (card.wire.skills ?? []).map((s) => s.id);

/** Calls GetExtendedAgentCard on the agent (with its auth) and returns the extended card with its signature status. */
export async function getExtendedCard(core: Core, alias: string, options: { binding?: Binding; wire?: WireCapture } = {}): Promise<ExtendedCardView> {
  const conn = await connect(core, alias, { binding: options.binding, checkCard: requireAdvertised, wire: options.wire });
  const { card, raw } = await conn.client.getExtendedCard();
  const signature = await signatureOf(core, conn.alias, card, raw);
  if (requiresSignedCard(core)) refuseUntrusted(conn.alias, signature, 'extended Agent Card');
  const publicSkills = new Set(skillIds(conn.card.card));
  const wire = card.wire;
  return {
    interface: { binding: conn.iface.binding, url: conn.iface.url, dialect: conn.iface.dialect },
    card: {
      name: wire.name,
      description: wire.description ?? null,
      version: wire.version ?? null,
      capabilities: wire.capabilities ?? {},
      supported_interfaces: wire.supportedInterfaces.map((i) => ({
        protocol_binding: i.protocolBinding,
        url: i.url,
        protocol_version: i.protocolVersion ?? null,
      })),
      skills: wire.skills ?? [],
      security_schemes: redactValue((wire as Record<string, unknown>).securitySchemes ?? {}),
    },
    added_skills: skillIds(card).filter((id) => !publicSkills.has(id)),
    signature,
    raw_card: redactValue(raw),
  };
}

/** `agent inspect`, with the extended card beside the public one when `extended` is asked for. */
export async function inspectAgentCard(
  core: Core,
  alias: string,
  options: { refresh?: boolean; binding?: Binding; extended?: boolean } = {},
): Promise<InspectView & { extended_card?: ExtendedCardView }> {
  const view = await inspectAgent(core, alias, { refresh: options.refresh, binding: options.binding });
  if (!options.extended) return view;
  return { ...view, extended_card: await getExtendedCard(core, alias, { binding: options.binding }) };
}
