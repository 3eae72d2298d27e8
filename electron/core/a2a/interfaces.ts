/** Interface negotiation: which binding and URL missive talks to, and why. */
import { transportError } from '../../../shared/errors.js';
import type { Binding } from '../config/schema.js';
import type { ParsedCard } from './card.js';

export const SUPPORTED_BINDINGS: readonly Binding[] = ['http+json', 'json-rpc'];

/** `HTTP+JSON`, `REST` → http+json; `JSONRPC`, `JSON-RPC` → json-rpc; `GRPC` → grpc (recognised, unsupported). */
export function canonicalBinding(name: string): string {
  const n = name.trim().toLowerCase().replace(/[\s_]/g, '');
  if (n === 'http+json' || n === 'httpjson' || n === 'rest' || n === 'http') return 'http+json';
  if (n === 'jsonrpc' || n === 'json-rpc' || n === 'jsonrpc2.0') return 'json-rpc';
  if (n === 'grpc') return 'grpc';
  return n;
}

export interface SelectedInterface {
  binding: Binding;
  protocol_binding: string;
  url: string;
  tenant: string | null;
  protocol_version: string;
  source: 'agent_card' | 'registry_interface' | 'base_url_fallback';
}

export interface NegotiationInput {
  card: ParsedCard;
  baseUrl: string;
  interfaceUrls: Record<string, string>;
  preference: string[];
  /** `--binding`: must be supported, and advertised unless the card omits supportedInterfaces. */
  required?: Binding;
}

export function negotiateInterface({ card, baseUrl, interfaceUrls, preference, required }: NegotiationInput): SelectedInterface {
  const order = required ? [required] : preference.filter((b): b is Binding => (SUPPORTED_BINDINGS as string[]).includes(b));
  if (card.interfacesMissing) {
    for (const binding of order) {
      const url = interfaceUrls[binding];
      if (url) return { binding, protocol_binding: binding, url, tenant: null, protocol_version: 'unknown', source: 'registry_interface' };
      if (binding === 'http+json') {
        return { binding, protocol_binding: 'HTTP+JSON', url: baseUrl, tenant: null, protocol_version: 'unknown', source: 'base_url_fallback' };
      }
    }
    throw transportError(
      'no_interface',
      `the Agent Card lists no supportedInterfaces and no registry URL exists for ${order.join(', ') || 'any supported binding'}`,
      'Register one with: missive agent add <alias> <base-url> --interface json-rpc=<url>',
    );
  }
  const advertised = card.wire.supportedInterfaces.map((iface) => ({ ...iface, canonical: canonicalBinding(iface.protocolBinding) }));
  for (const binding of order) {
    const match = advertised.find((iface) => iface.canonical === binding);
    if (match) {
      return {
        binding,
        protocol_binding: match.protocolBinding,
        url: match.url,
        tenant: match.tenant || null,
        protocol_version: match.protocolVersion ?? 'unknown',
        source: 'agent_card',
      };
    }
  }
  const offered = [...new Set(advertised.map((i) => i.protocolBinding))].join(', ') || 'none';
  throw transportError(
    'no_mutual_binding',
    required
      ? `the Agent Card does not advertise ${required} (it offers: ${offered})`
      : `no mutual A2A binding: the agent offers ${offered}; missive supports ${SUPPORTED_BINDINGS.join(', ')}`,
    advertised.some((i) => i.canonical === 'grpc') ? 'gRPC is recognised but not supported by missive yet.' : undefined,
  );
}
