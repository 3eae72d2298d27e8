/**
 * One agent, ready to call: its card, the negotiated interface and dialect, outbound auth pinned to the agent's
 * origin, and the binding call options. Every command that talks to an agent comes through `connect`. A client
 * certificate (mutual TLS) is a credential like the others: its dispatcher is used only when the credentials go to the
 * interface (a pinned origin); a cross-origin interface called without credentials gets the shared dispatcher.
 */
import type { Dispatcher } from 'undici';
import type { Core } from '../handle.js';
import type { Binding } from '../config/schema.js';
import type { BindingCall } from '../a2a/binding-call.js';
import { a2aClient, type A2AClient } from '../a2a/client.js';
import { interfaceNotice, type SelectedInterface } from '../a2a/interfaces.js';
import type { WireCapture } from '../a2a/wire.js';
import { serviceParameterMetadata } from '../a2a/service-params.js';
import { securitySchemesOf } from '../a2a/security-schemes.js';
import { assertConfirmedAgent } from '../auth/host-trust.js';
import { decidePin, plaintextWarning, type PinDecision } from '../auth/origin-pin.js';
import { loadCard, selectInterface, type CardResult } from './discovery.js';
import { outboundFor, pinInputFor, refuseQueryOverGrpc, withoutCredentials, type Outbound } from './outbound.js';
import { CLIENT_CERTIFICATE_SOURCE, clientTlsFor, hasClientCertificate } from './client-tls.js';
import { formatOrigin, originKey } from '../../../shared/origins.js';

export interface Connection {
  alias: string;
  card: CardResult;
  iface: SelectedInterface;
  outbound: Outbound;
  call: BindingCall;
  /** The typed A2A client over `call` (reauth and tenant decorators included). */
  client: A2AClient;
  /** Whether the credentials go to the interface, and why. */
  pin: PinDecision;
  /** Service-parameter metadata recorded beside what this connection writes (the version actually spoken). */
  meta: Record<string, unknown>;
}

/** The A2A-Version a call speaks: the explicit --protocol-version, else 0.3 on the v0.3 dialect, else the configured one. */
function spokenVersion(core: Core, iface: SelectedInterface): string {
  if (core.options.protocolVersion) return core.options.protocolVersion;
  return iface.dialect === '0.3' ? '0.3' : core.serviceParameters.version;
}

/** Request headers for the dialect: v0.3 names its extensions header `X-A2A-Extensions`. */
function dialectHeaders(headers: Record<string, string>, iface: SelectedInterface, version: string): Record<string, string> {
  const out: Record<string, string> = { ...headers, 'A2A-Version': version };
  if (iface.dialect === '0.3' && out['A2A-Extensions'] !== undefined) {
    out['X-A2A-Extensions'] = out['A2A-Extensions'];
    delete out['A2A-Extensions'];
  }
  return out;
}

export const bindingCall = (
  core: Core,
  iface: SelectedInterface,
  outbound: Outbound,
  alias?: string,
  wire?: WireCapture,
  dispatcher = core.dispatcher,
): BindingCall => {
  const version = spokenVersion(core, iface);
  return {
    iface,
    headers: dialectHeaders(outbound.headers, iface, version),
    query: outbound.query,
    reauth: outbound.reauth,
    timeoutMs: core.timeoutMs,
    warn: (message: string) => core.warn(message),
    protocolVersion: version,
    dispatcher,
    secrets: outbound.secrets,
    streamLimits: { maxBytes: core.config.qos.maxStreamBytes, maxEvents: core.config.qos.maxStreamEvents },
    maxAnswerObjects: core.config.qos.maxAnswerObjects,
    alias,
    wire,
  };
};

export interface ConnectOptions {
  binding?: Binding;
  checkCard?: (card: CardResult) => void;
  /** Secrets this request hands the agent in its body (push token, callback credentials), by name: pinned too. */
  bodySecrets?: string[];
  /** Records every exchange of the calls made through this connection (the wire view). */
  wire?: WireCapture;
}

/** Loads the (cached) card, checks it with `checkCard`, negotiates the interface, resolves auth and pins it. */
export async function connect(core: Core, alias: string, options: ConnectOptions = {}): Promise<Connection> {
  const card = await loadCard(core, alias);
  options.checkCard?.(card);
  const iface = selectInterface(core, card, options.binding);
  const agent = card.agent;
  // A relative URL resolved, or an interface passed over: said once, in the words `agent inspect` uses.
  const notice = interfaceNotice(agent.alias, iface);
  if (notice) core.warn(notice);
  // Secrets in the body (a push token) go only where this host confirmed the agent, as the credentials do.
  assertConfirmedAgent(core, agent, options.bodySecrets ?? []);
  const resolved = await outboundFor(core, agent);
  const sources = hasClientCertificate(agent) ? [...resolved.credentialSources, CLIENT_CERTIFICATE_SOURCE] : resolved.credentialSources;
  const pin = decidePin(pinInputFor(core, agent, iface.url, sources, options.bodySecrets));
  const outbound = pin.outcome === 'withheld' ? withoutCredentials(resolved) : resolved;
  refuseQueryOverGrpc(iface.binding, outbound, agent.alias);
  if (pin.outcome === 'sent') {
    const warning = plaintextWarning(iface.url, `the credentials of "${agent.alias}"`);
    if (warning) core.warn(warning);
  }
  // The certificate (and the CA bundle configured with it) serve the agent's pinned origins only; a cross-origin
  // interface gets the shared dispatcher. Its files and passphrase are read only then.
  const tls = pin.same_origin ? await clientTlsFor(core, agent) : undefined;
  const dispatcher: Dispatcher | undefined = tls?.dispatcher ?? core.dispatcher;
  const call = bindingCall(core, iface, outbound, agent.alias, options.wire, dispatcher);
  if (tls) call.grpcTls = tls.grpc;
  if (tls && hasClientCertificate(agent) && originKey(iface.url)?.secure === false) {
    core.warn(`the client certificate of "${agent.alias}" is not presented: ${formatOrigin(originKey(iface.url)!)} is not TLS. Use https (or grpcs).`);
  }
  call.auth = { declared: securitySchemesOf(card.card).schemes, authRef: agent.authRefName, sent: outbound.credentialSources };
  const meta = serviceParameterMetadata({ ...core.serviceParameters, version: call.protocolVersion });
  return { alias: agent.alias, card, iface, outbound, call, client: a2aClient(call), pin, meta };
}
