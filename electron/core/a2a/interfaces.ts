/** Interface negotiation: which binding, URL and A2A dialect missive talks to, and why. */
import { transportError } from '../../../shared/errors.js';
import type { Binding } from '../config/schema.js';
import type { ParsedCard } from './card.js';
import { BINDING_LABEL, canonicalBinding } from './binding-names.js';
import { dialectFor, type Dialect } from './dialect.js';

/** Every binding missive speaks, in its default order of preference. */
export const SUPPORTED_BINDINGS: readonly Binding[] = ['http+json', 'json-rpc', 'grpc'];

export interface SelectedInterface {
  binding: Binding;
  protocol_binding: string;
  url: string;
  tenant: string | null;
  /** The version the card declares for this interface, or `unknown`. */
  protocol_version: string;
  /** The wire missive speaks on it: `1.0`, or `0.3` for v0.3 and v0.2 agents. */
  dialect: Dialect;
  source: 'agent_card' | 'registry_interface' | 'base_url_fallback';
}

/** True when the interface is spoken through the SDK (sdk-transport.ts, loaded then) rather than missive's own 1.0 HTTP code. */
export const viaSdk = (iface: SelectedInterface): boolean => iface.binding === 'grpc' || iface.dialect === '0.3';

export interface NegotiationInput {
  card: ParsedCard;
  baseUrl: string;
  interfaceUrls: Record<string, string>;
  /** The binding order the agent's registration sets; empty: follow the card's order. */
  preference: string[];
  /** `--binding`: must be supported, and advertised unless the card omits supportedInterfaces. */
  required?: Binding;
  /** `--protocol-version`: speak this version's dialect whatever the card says (for cards that misstate it). */
  forcedVersion?: string;
}

const isSupported = (b: string): b is Binding => (SUPPORTED_BINDINGS as string[]).includes(b);

/** The bindings to try when the card lists no interfaces: the required one alone, else the preference, then the rest. */
export function bindingOrder(preference: string[], required?: Binding): Binding[] {
  if (required) return [required];
  const listed = preference.map(canonicalBinding).filter(isSupported);
  return [...new Set([...listed, ...SUPPORTED_BINDINGS])];
}

/**
 * The interface missive talks to. `--binding` (`required`) allows that binding alone; else the first binding of the
 * registration's preference the card offers; else, with no preference, the highest A2A version both sides speak (1.0
 * over 0.3) and, among the interfaces of that version, the card's own order (v1.0 `supportedInterfaces` order, v0.3
 * `preferredTransport` first). On one binding the highest version wins too. `--protocol-version` forces the version:
 * an interface declaring it is preferred, and its dialect is spoken whatever the card says.
 */
export function negotiateInterface({ card, baseUrl, interfaceUrls, preference, required, forcedVersion }: NegotiationInput): SelectedInterface {
  const forced = forcedVersion ? dialectFor(forcedVersion) : undefined;
  if (card.interfacesMissing) {
    for (const binding of bindingOrder(preference, required)) {
      const url = interfaceUrls[binding];
      const dialect = forced ?? '1.0';
      if (url) return { binding, protocol_binding: binding, url, tenant: null, protocol_version: 'unknown', dialect, source: 'registry_interface' };
      if (binding === 'http+json') {
        return { binding, protocol_binding: 'HTTP+JSON', url: baseUrl, tenant: null, protocol_version: 'unknown', dialect, source: 'base_url_fallback' };
      }
    }
    throw transportError(
      'no_interface',
      `the Agent Card lists no supportedInterfaces and no registry URL exists for ${bindingOrder(preference, required).join(', ') || 'any supported binding'}`,
      'Register one with: missive agent add <alias> <base-url> --interface json-rpc=<url>',
    );
  }
  const advertised = card.wire.supportedInterfaces.map((iface) => ({
    ...iface,
    canonical: canonicalBinding(iface.protocolBinding),
    dialect: dialectFor(iface.protocolVersion),
  }));
  type Advertised = (typeof advertised)[number];
  /** The candidate speaking the wanted version (forced, else the highest among them), else the first. */
  const best = (candidates: Advertised[]): Advertised | undefined => {
    const wanted: Dialect = forced ?? (candidates.some((i) => i.dialect === '1.0') ? '1.0' : '0.3');
    return candidates.find((i) => i.dialect === wanted) ?? candidates[0];
  };
  const on = (binding: string) => advertised.filter((i) => i.canonical === binding);
  let match: Advertised | undefined;
  if (required) match = best(on(required));
  else {
    for (const binding of new Set(preference.map(canonicalBinding).filter(isSupported))) if ((match = best(on(binding)))) break;
    match ??= best(advertised.filter((i) => isSupported(i.canonical)));
  }
  if (match) {
    return {
      binding: match.canonical as Binding,
      protocol_binding: match.protocolBinding,
      url: match.url,
      tenant: match.tenant || null,
      protocol_version: match.protocolVersion ?? 'unknown',
      dialect: forced ?? match.dialect,
      source: 'agent_card',
    };
  }
  const offered = [...new Set(advertised.map((i) => i.protocolBinding))].join(', ') || 'none';
  throw transportError(
    'no_mutual_binding',
    required
      ? `the Agent Card does not advertise ${required} (it offers: ${offered})`
      : `no mutual A2A binding: the agent offers ${offered}; missive speaks ${SUPPORTED_BINDINGS.map((b) => BINDING_LABEL[b]).join(', ')}`,
    required ? `Drop --binding to let missive pick one the agent offers.` : 'Ask the agent operator for an HTTP+JSON, JSON-RPC or gRPC interface.',
  );
}

/** The A2A versions missive speaks, highest first (v0.2 agents are spoken to in the 0.3 dialect). */
export const MISSIVE_VERSIONS: readonly Dialect[] = ['1.0', '0.3'];

/** What `agent inspect` says about the version: the one spoken, what each side speaks, and how it was chosen. */
export interface VersionNegotiation {
  /** The version missive speaks to the selected interface (its A2A-Version), or null when nothing was selected. */
  spoken: Dialect | null;
  /** `Major.Minor` versions the card's interfaces declare, highest first. */
  agent_offers: string[];
  missive_speaks: readonly Dialect[];
  /** True when `--protocol-version` chose it. */
  forced: boolean;
  /** The A2A-Version the card was asked for with (null: the card came from the cache or a file). */
  card_requested_with: string | null;
}

const majorMinor = (version: string | undefined): string | null => {
  const match = /^\s*v?(\d+)\.(\d+)/.exec(version ?? '');
  return match ? `${Number(match[1])}.${Number(match[2])}` : null;
};

export function versionNegotiation(
  card: ParsedCard,
  selected: SelectedInterface | null,
  forcedVersion: string | undefined,
  cardRequestedWith: string | null,
): VersionNegotiation {
  const offers = [...new Set(card.wire.supportedInterfaces.map((i) => majorMinor(i.protocolVersion)).filter((v): v is string => v !== null))];
  offers.sort((a, b) => {
    const [am, an] = a.split('.').map(Number);
    const [bm, bn] = b.split('.').map(Number);
    return bm! - am! || bn! - an!;
  });
  return {
    spoken: selected?.dialect ?? null,
    agent_offers: offers,
    missive_speaks: MISSIVE_VERSIONS,
    forced: forcedVersion !== undefined,
    card_requested_with: cardRequestedWith,
  };
}
