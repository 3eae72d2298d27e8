/**
 * The requests a send, stream or collective would make, built but not sent: the basis of "Copy as curl". Each request
 * is built exactly as send and stream build it (`buildSend`: card, negotiated interface, pinned auth, parts, size
 * limits), then rendered as the HTTP request of the negotiated wire, with credentials redacted: A2A 1.0 HTTP+JSON
 * `POST <iface>/message:send|stream`, 1.0 JSON-RPC `SendMessage|SendStreamingMessage`, and for the v0.3 dialect the
 * request the SDK's v0.3 transport writes (caught before it leaves). gRPC has no curl form: `request` is null and
 * `note` says why. Nothing is journaled and nothing reaches the agent (an uncached card is fetched, as `agent inspect`
 * would).
 */
import { toMissiveError, usageError } from '../../../shared/errors.js';
import type { MessageInputs, WireRequest } from '../../../shared/ipc/contract.js';
import type { Core } from '../handle.js';
import { capabilityView } from '../a2a/capabilities.js';
import { unaryHttpRequest } from '../a2a/json-wire.js';
import { streamRequest } from '../a2a/sse.js';
import { wireRequestOf, type OutgoingRequest } from '../a2a/wire.js';
import { buildSend, type PreparedSend } from './send.js';

export interface PreviewInput {
  target: { agent: string } | { group: string };
  operation: 'send' | 'stream';
  inputs: MessageInputs;
  cwd: string;
}

export interface PreviewedRequest {
  agent: string;
  binding: string;
  dialect: string;
  /** null when curl cannot send it (gRPC) or the request could not be built for this member: `note` says why. */
  request: WireRequest | null;
  note: string | null;
}

const METHOD = { send: 'SendMessage', stream: 'SendStreamingMessage' } as const;

/** The agents a target names: the agent itself, or a group's members in rank order. */
async function targetAgents(core: Core, target: PreviewInput['target']): Promise<string[]> {
  if ('agent' in target) return [target.agent];
  const { groups } = await core.storage();
  if (!(await groups.get(target.group))) throw usageError('unknown_group', `no group named "${target.group}"`, 'List groups with: missive group list');
  return (await groups.members(target.group)).sort((a, b) => a.rank - b.rank).map((m) => m.agent_alias);
}

/** The request the negotiated wire sends for this prepared send or stream (unredacted), or null for gRPC. */
async function outgoing(p: PreparedSend): Promise<OutgoingRequest | null> {
  const { call, iface } = p;
  const method = METHOD[p.operation];
  if (iface.binding === 'grpc') return null;
  if (iface.dialect === '0.3') return (await import('../a2a/sdk-transport.js')).legacyHttpRequest(call, method, p.request);
  if (p.operation === 'stream') return { protocol: 'http', method: 'POST', ...streamRequest(call, 'SendStreamingMessage', p.request) };
  const req = unaryHttpRequest(call, 'SendMessage', p.request);
  return { protocol: 'http', method: req.method ?? 'POST', url: req.url, headers: req.headers ?? {}, body: req.body };
}

async function previewOne(core: Core, agent: string, input: PreviewInput): Promise<PreviewedRequest> {
  const prepared = await buildSend(core, { ...input.inputs, agent, cwd: input.cwd }, input.operation);
  const { iface } = prepared;
  const notes: string[] = [];
  if (iface.binding === 'grpc')
    notes.push(`${prepared.alias} is spoken to over gRPC (${iface.url}), which curl cannot send; copy it as a missive command instead.`);
  if (input.operation === 'stream' && !capabilityView(prepared.card.card).streaming)
    notes.push(`The Agent Card of ${prepared.alias} does not advertise streaming: \`missive stream\` needs --force.`);
  const request = await outgoing(prepared);
  return {
    agent: prepared.alias,
    binding: iface.binding,
    dialect: iface.dialect,
    request: request && wireRequestOf(request, prepared.outbound.secrets),
    note: notes.length ? notes.join(' ') : null,
  };
}

/**
 * One entry per agent of the target. For a group, a member whose request cannot be built (no card, refused auth…)
 * gets `request: null` and the error as its note; for a single agent the error is thrown.
 */
export async function previewRequests(core: Core, input: PreviewInput): Promise<{ requests: PreviewedRequest[] }> {
  const agents = await targetAgents(core, input.target);
  if ('agent' in input.target) return { requests: [await previewOne(core, agents[0]!, input)] };
  const requests: PreviewedRequest[] = [];
  for (const agent of agents) {
    try {
      requests.push(await previewOne(core, agent, input));
    } catch (error) {
      requests.push({ agent, binding: 'unknown', dialect: 'unknown', request: null, note: `Not built: ${toMissiveError(error).message}` });
    }
  }
  return { requests };
}
