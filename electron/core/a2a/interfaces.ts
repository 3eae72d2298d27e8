/** Interface negotiation: which binding, URL and A2A dialect missive talks to, and why. */
import { transportError } from '../../../shared/errors.js';
import type { Binding } from '../config/schema.js';
import type { ParsedCard } from './card.js';
import { BINDING_LABEL, canonicalBinding } from './binding-names.js';
import { dialectFor, type Dialect } from './dialect.js';
import { interfaceUrl, type InterfaceUrl } from './interface-urls.js';

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

/** An interface of the card missive cannot call (interface-urls.ts), passed over for the next usable one. */
export interface SkippedInterface {
  /** Its position in the card's supportedInterfaces (0-based). */
  card_index: number;
  protocol_binding: string;
  /** As the card declares it. */
  url: string;
  reason: string;
}

/** What negotiation chose, with why: the same words in `agent inspect`, `agent show`, `route explain`, send warnings and the GUI. */
export interface NegotiatedInterface extends SelectedInterface {
  /** Its position in the card's supportedInterfaces (0-based), or null when it is not the card's. */
  card_index: number | null;
  /** The URL as the card declares it, when missive resolved a relative one to `url`; else null. */
  declared_url: string | null;
  /** Why this interface, in one sentence. */
  reason: string;
  /** Every interface of the card on a binding missive speaks that it cannot call (never selected), with why. */
  skipped: SkippedInterface[];
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
  /** The URL the card was fetched from: relative interface URLs are resolved against it (null: a card file). */
  cardUrl?: string | null;
}

const isSupported = (b: string): b is Binding => (SUPPORTED_BINDINGS as string[]).includes(b);

/** The bindings to try when the card lists no interfaces: the required one alone, else the preference, then the rest. */
export function bindingOrder(preference: string[], required?: Binding): Binding[] {
  if (required) return [required];
  const listed = preference.map(canonicalBinding).filter(isSupported);
  return [...new Set([...listed, ...SUPPORTED_BINDINGS])];
}

/** `interface 1 (HTTP+JSON) has the relative URL "/a2a/rest": resolved against the card's URL … to …`. */
export function resolvedUrlText(index: number, protocolBinding: string, declared: string, target: Extract<InterfaceUrl, { ok: true }>): string {
  return `interface ${index + 1} (${protocolBinding}) has the relative URL "${declared}": resolved against the card's URL ${target.resolved_from} to ${target.url}`;
}

const skippedText = (s: SkippedInterface) => `skipped interface ${s.card_index + 1} (${s.protocol_binding} "${s.url}"): ${s.reason}`;

/**
 * What a send warns about the interface chosen: a relative URL resolved, or an interface of the card passed over
 * before it; null when the card was taken as written.
 */
export function interfaceNotice(alias: string, iface: NegotiatedInterface): string | null {
  const passedOver = iface.skipped.some((s) => iface.card_index === null || s.card_index < iface.card_index);
  if (!iface.declared_url && !passedOver) return null;
  return `"${alias}": ${BINDING_LABEL[iface.binding] ?? iface.binding} ${iface.url} chosen: ${iface.reason}`;
}

/**
 * The interface missive talks to. `--binding` (`required`) allows that binding alone; else the first binding of the
 * registration's preference the card offers; else, with no preference, the highest A2A version both sides speak (1.0
 * over 0.3) and, among the interfaces of that version, the card's own order (v1.0 `supportedInterfaces` order, v0.3
 * `preferredTransport` first). On one binding the highest version wins too. `--protocol-version` forces the version:
 * an interface declaring it is preferred, and its dialect is spoken whatever the card says. Only interfaces missive
 * can call take part: a relative URL is resolved against the card's URL, one that cannot be is skipped (interface-urls.ts).
 */
export function negotiateInterface({ card, baseUrl, interfaceUrls, preference, required, forcedVersion, cardUrl }: NegotiationInput): NegotiatedInterface {
  const forced = forcedVersion ? dialectFor(forcedVersion) : undefined;
  const forcedText = forced ? `; --protocol-version ${forcedVersion} speaks A2A ${forced}` : '';
  if (card.interfacesMissing) {
    const noList = { card_index: null, declared_url: null, skipped: [] };
    const how = required ? `--binding ${required} asks for it` : 'the first binding missive speaks with a URL';
    for (const binding of bindingOrder(preference, required)) {
      const url = interfaceUrls[binding];
      const dialect = forced ?? '1.0';
      if (url) {
        const reason = `the card lists no interfaces: the ${BINDING_LABEL[binding]} URL given at registration (${how})${forcedText}`;
        return { binding, protocol_binding: binding, url, tenant: null, protocol_version: 'unknown', dialect, source: 'registry_interface', ...noList, reason };
      }
      if (binding === 'http+json') {
        const reason = `the card lists no interfaces and no URL was given at registration: the base URL, as HTTP+JSON (${how})${forcedText}`;
        return {
          binding,
          protocol_binding: 'HTTP+JSON',
          url: baseUrl,
          tenant: null,
          protocol_version: 'unknown',
          dialect,
          source: 'base_url_fallback',
          ...noList,
          reason,
        };
      }
    }
    throw transportError(
      'no_interface',
      `the Agent Card lists no supportedInterfaces and no registry URL exists for ${bindingOrder(preference, required).join(', ') || 'any supported binding'}`,
      'Register one with: missive agent add <alias> <base-url> --interface json-rpc=<url>',
    );
  }
  const advertised = card.wire.supportedInterfaces.map((iface, index) => {
    const canonical = canonicalBinding(iface.protocolBinding);
    return {
      ...iface,
      index,
      canonical,
      dialect: dialectFor(iface.protocolVersion),
      target: isSupported(canonical) ? interfaceUrl(iface.url, canonical, cardUrl ?? null) : null,
    };
  });
  type Advertised = (typeof advertised)[number];
  const skipped: SkippedInterface[] = advertised.flatMap((i) =>
    i.target && !i.target.ok ? [{ card_index: i.index, protocol_binding: i.protocolBinding, url: i.url, reason: i.target.reason }] : [],
  );
  const callable = advertised.filter((i) => i.target?.ok);
  /** The candidate speaking the wanted version (forced, else the highest among them), else the first. */
  const best = (candidates: Advertised[]): Advertised | undefined => {
    const wanted: Dialect = forced ?? (candidates.some((i) => i.dialect === '1.0') ? '1.0' : '0.3');
    return candidates.find((i) => i.dialect === wanted) ?? candidates[0];
  };
  const on = (binding: string) => callable.filter((i) => i.canonical === binding);
  let match: Advertised | undefined;
  let how = '';
  if (required) [match, how] = [best(on(required)), `--binding ${required} asks for it`];
  else {
    for (const binding of new Set(preference.map(canonicalBinding).filter(isSupported)))
      if ((match = best(on(binding)))) {
        how = `the registration prefers ${binding}`;
        break;
      }
    if (!match) {
      match = best(callable);
      how =
        match === callable[0]
          ? "the card's first interface missive can call"
          : `the card's first interface missive can call in A2A ${match?.dialect}, the highest version both speak`;
    }
  }
  if (match) {
    const target = match.target as Extract<InterfaceUrl, { ok: true }>;
    const passedOver = skipped.filter((s) => s.card_index < match.index);
    const reason = [
      `${how}${forcedText}`,
      ...(target.resolved_from ? [resolvedUrlText(match.index, match.protocolBinding, match.url, target)] : []),
      ...passedOver.map(skippedText),
    ].join('; ');
    return {
      binding: match.canonical as Binding,
      protocol_binding: match.protocolBinding,
      url: target.url,
      tenant: match.tenant || null,
      protocol_version: match.protocolVersion ?? 'unknown',
      dialect: forced ?? match.dialect,
      source: 'agent_card',
      card_index: match.index,
      declared_url: target.resolved_from ? match.url : null,
      reason,
      skipped,
    };
  }
  const offered = [...new Set(advertised.map((i) => i.protocolBinding))].join(', ') || 'none';
  const uncallable = (required ? skipped.filter((s) => canonicalBinding(s.protocol_binding) === required) : skipped).map(skippedText);
  const why = uncallable.length ? ` (${uncallable.join('; ')})` : '';
  const offersRequired = required && advertised.some((i) => i.canonical === required);
  throw transportError(
    'no_mutual_binding',
    required
      ? offersRequired
        ? `the Agent Card's ${required} interface cannot be called${why}`
        : `the Agent Card does not advertise ${required} (it offers: ${offered})`
      : uncallable.length
        ? `no interface of the Agent Card can be called: the agent offers ${offered}${why}`
        : `no mutual A2A binding: the agent offers ${offered}; missive speaks ${SUPPORTED_BINDINGS.map((b) => BINDING_LABEL[b]).join(', ')}`,
    required
      ? `Drop --binding to let missive pick one the agent offers.`
      : uncallable.length
        ? 'Ask the agent operator for absolute interface URLs in the card (missive resolves relative ones only against a card fetched over http(s)).'
        : 'Ask the agent operator for an HTTP+JSON, JSON-RPC or gRPC interface.',
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
