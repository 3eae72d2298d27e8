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
  /** The agent's binding order; supported bindings it does not list are tried after it. */
  preference: string[];
  /** `--binding`: must be supported, and advertised unless the card omits supportedInterfaces. */
  required?: Binding;
  /** `--protocol-version`: speak this version's dialect whatever the card says (for cards that misstate it). */
  forcedVersion?: string;
}

const isSupported = (b: string): b is Binding => (SUPPORTED_BINDINGS as string[]).includes(b);

/** The bindings to try, in order: the required one alone, else the preference, then the rest of what missive speaks. */
export function bindingOrder(preference: string[], required?: Binding): Binding[] {
  if (required) return [required];
  const listed = preference.map(canonicalBinding).filter(isSupported);
  return [...new Set([...listed, ...SUPPORTED_BINDINGS])];
}

export function negotiateInterface({ card, baseUrl, interfaceUrls, preference, required, forcedVersion }: NegotiationInput): SelectedInterface {
  const order = bindingOrder(preference, required);
  const forced = forcedVersion ? dialectFor(forcedVersion) : undefined;
  if (card.interfacesMissing) {
    for (const binding of order) {
      const url = interfaceUrls[binding];
      const dialect = forced ?? '1.0';
      if (url) return { binding, protocol_binding: binding, url, tenant: null, protocol_version: 'unknown', dialect, source: 'registry_interface' };
      if (binding === 'http+json') {
        return { binding, protocol_binding: 'HTTP+JSON', url: baseUrl, tenant: null, protocol_version: 'unknown', dialect, source: 'base_url_fallback' };
      }
    }
    throw transportError(
      'no_interface',
      `the Agent Card lists no supportedInterfaces and no registry URL exists for ${order.join(', ') || 'any supported binding'}`,
      'Register one with: missive agent add <alias> <base-url> --interface json-rpc=<url>',
    );
  }
  const advertised = card.wire.supportedInterfaces.map((iface) => ({ ...iface, canonical: canonicalBinding(iface.protocolBinding), dialect: dialectFor(iface.protocolVersion) }));
  for (const binding of order) {
    const candidates = advertised.filter((iface) => iface.canonical === binding);
    // A card may list one binding twice, for 1.0 and for 0.3: the current wire wins unless a version is forced.
    const match = candidates.find((i) => i.dialect === (forced ?? '1.0')) ?? candidates[0];
    if (match) {
      return {
        binding,
        protocol_binding: match.protocolBinding,
        url: match.url,
        tenant: match.tenant || null,
        protocol_version: match.protocolVersion ?? 'unknown',
        dialect: forced ?? match.dialect,
        source: 'agent_card',
      };
    }
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
