/**
 * What is wrong with an Agent Card that missive still reads: missing fields, URLs that are not absolute or sit on
 * another origin than the card, bindings missive cannot use, A2A versions it does not speak, the signature's state.
 * Warnings never refuse the card (card.ts does that for cards it cannot read, see `refusedCardIssues`); `agent inspect`
 * and the Agents view list them. Pure: no I/O.
 */
import type { ParsedCard } from '../a2a/card.js';
import { parseCard } from '../a2a/card.js';
import { canonicalBinding, BINDING_LABEL } from '../a2a/binding-names.js';
import { resolvedUrlText, SUPPORTED_BINDINGS } from '../a2a/interfaces.js';
import { interfaceUrl, isGrpcTarget } from '../a2a/interface-urls.js';
import type { SignatureView } from '../a2a/card-signature.js';
import { originOf } from '../../../shared/origins.js';
import { isMissiveError } from '../../../shared/errors.js';

export interface CardWarning {
  /** Stable: missing_description, missing_skills, missing_version, missing_interfaces, relative_url, cross_origin_url, unsupported_binding, version_mismatch, no_usable_interface, signature_invalid, unsigned. */
  code: string;
  /** `warning`: something an operator should fix or know; `info`: common and harmless (an unsigned card). */
  severity: 'warning' | 'info';
  /** Where in the card (`supportedInterfaces.1.url`), or null for the card as a whole. */
  field: string | null;
  message: string;
}

export interface CardWarningInput {
  card: ParsedCard;
  /** Where the card came from (its origin is the one interface URLs are compared with); a file:// URL skips that check. */
  cardUrl: string | null;
  /** Origins the agent's credentials may go to besides the card's (`--trust-origin`): named in the cross-origin warning. */
  trustedOrigins?: readonly string[];
  signature?: SignatureView | null;
  /** False when no interface of the card can be talked to. */
  negotiated?: boolean;
}

/** A2A versions missive reads (0.2 cards are read and spoken to with the 0.3 dialect). */
const KNOWN_VERSIONS = ['1.0', '0.3', '0.2'];

const majorMinor = (version: string): string | null => {
  const match = /^\s*v?(\d+)\.(\d+)/.exec(version);
  return match ? `${Number(match[1])}.${Number(match[2])}` : null;
};

const isHttpUrl = (text: string): boolean => {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value : null);

export function cardWarnings(input: CardWarningInput): CardWarning[] {
  const { card } = input;
  const wire = card.wire as typeof card.wire & Record<string, unknown>;
  const out: CardWarning[] = [];
  const add = (code: string, field: string | null, message: string, severity: CardWarning['severity'] = 'warning') =>
    out.push({ code, severity, field, message });

  if (!text(wire.description))
    add('missing_description', 'description', 'the card has no description: operators and routing policies cannot tell what this agent does');
  if (!wire.skills?.length) add('missing_skills', 'skills', 'the card lists no skills: capability-based routing finds nothing for this agent');
  if (!text(wire.version)) add('missing_version', 'version', 'the card states no version of the agent', 'info');
  if (card.interfacesMissing)
    add(
      'missing_interfaces',
      'supportedInterfaces',
      'the card lists no interfaces: missive falls back to the base URL and the interfaces given at registration',
    );

  const cardOrigin = input.cardUrl && isHttpUrl(input.cardUrl) ? originOf(input.cardUrl) : null;
  const trusted = new Set((input.trustedOrigins ?? []).map((o) => originOf(o) ?? o));
  wire.supportedInterfaces.forEach((iface, index) => {
    const field = `supportedInterfaces.${index}`;
    const binding = canonicalBinding(iface.protocolBinding);
    const supported = (SUPPORTED_BINDINGS as readonly string[]).includes(binding);
    if (!supported) {
      add(
        'unsupported_binding',
        `${field}.protocolBinding`,
        `interface ${index + 1} uses the ${iface.protocolBinding} binding, which missive does not speak (it speaks ${SUPPORTED_BINDINGS.map((b) => BINDING_LABEL[b] ?? b).join(', ')}): it is ignored`,
      );
    }
    const absolute = binding === 'grpc' ? isGrpcTarget(iface.url) : isHttpUrl(iface.url);
    // The same resolution negotiation applies (interface-urls.ts): a relative URL it resolves is called, others skipped.
    const target = supported && !absolute ? interfaceUrl(iface.url, binding, input.cardUrl) : null;
    if (target?.ok) {
      add('relative_url', `${field}.url`, `${resolvedUrlText(index, iface.protocolBinding, iface.url, target)} (A2A asks for absolute URLs)`);
    } else if (target) {
      add(
        'relative_url',
        `${field}.url`,
        `interface ${index + 1} (${iface.protocolBinding}) has the URL "${iface.url}": ${target.reason}; missive cannot call it: it is skipped`,
      );
    } else if (!absolute) {
      add('relative_url', `${field}.url`, `interface ${index + 1} has the URL "${iface.url}", which is not an absolute http(s) URL`);
    } else if (cardOrigin && binding !== 'grpc') {
      const origin = originOf(iface.url);
      if (origin && origin !== cardOrigin) {
        const credentials = trusted.has(origin)
          ? 'it is a trusted origin of this agent, so its credentials go there'
          : "the agent's credentials are not sent there unless that origin is trusted (--trust-origin)";
        add('cross_origin_url', `${field}.url`, `interface ${index + 1} is on ${origin}, another origin than the card's (${cardOrigin}): ${credentials}`);
      }
    }
    if (iface.protocolVersion !== undefined) {
      const version = majorMinor(iface.protocolVersion);
      if (!version || !KNOWN_VERSIONS.includes(version)) {
        add(
          'version_mismatch',
          `${field}.protocolVersion`,
          `interface ${index + 1} declares A2A ${iface.protocolVersion}; missive speaks ${KNOWN_VERSIONS.join(', ')}${supported ? ' and will try the closest it speaks' : ''}`,
        );
      }
    } else if (card.format === '1.0') {
      add('version_mismatch', `${field}.protocolVersion`, `interface ${index + 1} declares no protocolVersion: missive assumes A2A 1.0`, 'info');
    }
  });
  if (card.declaredVersion && card.format === '1.0') {
    const offered = [
      ...new Set(wire.supportedInterfaces.map((i) => (i.protocolVersion ? majorMinor(i.protocolVersion) : null)).filter((v): v is string => !!v)),
    ];
    const declared = majorMinor(card.declaredVersion);
    if (offered.length && declared && !offered.includes(declared)) {
      add(
        'version_mismatch',
        'protocolVersion',
        `the card declares protocolVersion ${card.declaredVersion} but its interfaces declare ${offered.join(', ')}: missive follows the interfaces`,
      );
    }
  }
  for (const [field, value] of [
    ['documentationUrl', wire.documentationUrl],
    ['iconUrl', wire.iconUrl],
    ['provider.url', (wire.provider as { url?: unknown } | undefined)?.url],
  ] as const) {
    if (typeof value === 'string' && value && !isHttpUrl(value)) add('relative_url', field, `${field} "${value}" is not an absolute http(s) URL`);
  }
  if (input.negotiated === false)
    add(
      'no_usable_interface',
      'supportedInterfaces',
      'no interface of this card can be called (none uses a binding missive speaks with a URL it can call): calls to this agent fail until one is added',
    );
  if (input.signature?.status === 'invalid')
    add('signature_invalid', 'signatures', `the card's signature does not verify: ${input.signature.reason ?? 'no reason given'}`);
  else if (input.signature?.status === 'unsigned')
    add('unsigned', 'signatures', 'the card is not signed: nothing proves it comes from the agent’s owner', 'info');
  return out;
}

/**
 * Every reason a card is refused (not one): the schema issues card.ts found, one per entry, or its single reason.
 * An empty list: the card is readable.
 */
export function refusedCardIssues(raw: unknown, where = 'the card'): string[] {
  try {
    parseCard(raw, where);
    return [];
  } catch (error) {
    if (!isMissiveError(error)) throw error;
    const match = /does not match A2A v[\d.]+: (.*)$/s.exec(error.message);
    return match ? match[1]!.split('; ').filter(Boolean) : [error.message];
  }
}
