/**
 * `missive conformance <agent>`: a read-only probe of every interface the Agent Card lists (every binding, both
 * dialects). For each interface it calls every operation the card advertises and reports a table operation ×
 * interface: `ok`, `failed` with the error code, `not_advertised`, `not_in_0.3`, `skipped` (sends, unless asked for,
 * and the push-config create, which would write at the agent), each with its latency. Reads use a task
 * id that cannot exist, so a conformant agent answers TaskNotFound, which counts as ok. Calls go through
 * the A2A client (client.ts) with the connection any command gets (auth, origin pinning), so the probe journals nothing
 * beyond the card refresh.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { MissiveError, toMissiveError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import type { Binding } from '../config/schema.js';
import type { BindingCall } from '../a2a/binding-call.js';
import { a2aClient } from '../a2a/client.js';
import { canonicalBinding } from '../a2a/binding-names.js';
import { dialectFor } from '../a2a/dialect.js';
import { SUPPORTED_BINDINGS, type SelectedInterface } from '../a2a/interfaces.js';
import { interfaceUrl } from '../a2a/interface-urls.js';
import { createWireCapture } from '../a2a/wire.js';
import { redactUrl } from '../security/redact.js';
import { decidePin } from '../auth/origin-pin.js';
import { bindingCall, connect, type Connection } from '../agents/connection.js';
import { loadCard, type CardResult } from '../agents/discovery.js';
import { pinInputFor, withoutCredentials } from '../agents/outbound.js';
import { advertises, OPERATIONS, type OperationSpec, type ProbeOperation } from './operations.js';
import { isTaskNotFound } from './task-not-found.js';

export type CellStatus = 'ok' | 'failed' | 'skipped' | 'not_advertised' | 'not_in_0.3';

export interface ProbeCell {
  operation: ProbeOperation;
  status: CellStatus;
  /** The stable error code of a failed cell. */
  code: string | null;
  message: string | null;
  /** Why a cell is what it is, in a few words (`TaskNotFound`, `--include-send`, …). */
  note: string | null;
  latency_ms: number | null;
}

export interface ProbeInterface {
  /** Column key: binding and dialect, e.g. `json-rpc/1.0`. */
  id: string;
  binding: string;
  protocol_binding: string;
  url: string;
  protocol_version: string;
  dialect: string;
  /** False for a binding missive does not speak: listed, not probed. */
  probed: boolean;
  cells: ProbeCell[];
}

export interface ConformanceReport {
  alias: string;
  card: { name: string; format: string; url: string; status: string; latency_ms: number };
  include_send: boolean;
  operations: ProbeOperation[];
  interfaces: ProbeInterface[];
  summary: Record<CellStatus, number>;
  /** True when every advertised, probed cell is ok. */
  passed: boolean;
  exit_code: number;
}

/** The exit code of a probe that found a cell failing: the agent does not conform (protocol, see docs/cli.md). */
export const CONFORMANCE_FAILED_EXIT = 76;

/** At most this many stream events are read from one probe stream. */
const MAX_STREAM_EVENTS = 1000;

export interface ProbeOptions {
  includeSend?: boolean;
}

interface Target {
  iface: SelectedInterface;
  /** The call for it, or why no call can be made (credentials refused, …). */
  call: BindingCall | MissiveError;
}

const elapsed = (start: number) => Math.round(performance.now() - start);

/** The interfaces to probe: each one the card lists, or, for a card without a list, what each binding negotiates to. */
async function targets(core: Core, alias: string, card: CardResult): Promise<Array<{ iface: SelectedInterface; supported: boolean }>> {
  if (card.card.interfacesMissing) {
    const out: Array<{ iface: SelectedInterface; supported: boolean }> = [];
    for (const binding of SUPPORTED_BINDINGS) {
      try {
        out.push({ iface: (await connect(core, alias, { binding })).iface, supported: true });
      } catch {
        // No URL for this binding: nothing to probe there.
      }
    }
    return out;
  }
  return card.card.wire.supportedInterfaces.map((i) => {
    const binding = canonicalBinding(i.protocolBinding);
    const dialect = core.options.protocolVersion ? dialectFor(core.options.protocolVersion) : dialectFor(i.protocolVersion);
    // A relative URL is probed where negotiation would call it: resolved against the card's URL (interface-urls.ts).
    const target = interfaceUrl(i.url, binding, card.url);
    return {
      iface: {
        binding: binding as Binding,
        protocol_binding: i.protocolBinding,
        url: target.ok ? target.url : i.url,
        tenant: i.tenant || null,
        protocol_version: i.protocolVersion ?? 'unknown',
        dialect,
        source: 'agent_card' as const,
      },
      supported: (SUPPORTED_BINDINGS as string[]).includes(binding),
    };
  });
}

/** The call for one interface: the connection of its binding (auth as any command), re-pinned when the URL differs. */
async function callFor(core: Core, alias: string, iface: SelectedInterface): Promise<BindingCall> {
  const conn: Connection = await connect(core, alias, { binding: iface.binding });
  if (conn.iface.url === iface.url && conn.iface.dialect === iface.dialect) return conn.call;
  const agent = conn.card.agent;
  const pin = decidePin(pinInputFor(core, agent, iface.url, conn.outbound.credentialSources));
  const outbound = pin.outcome === 'withheld' ? withoutCredentials(conn.outbound) : conn.outbound;
  return { ...conn.call, ...bindingCall(core, iface, outbound, agent.alias), dispatcher: conn.call.dispatcher };
}

const textMessage = () => ({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'missive conformance probe' }] } });

/** Reads a probe stream to its end (bounded); returns how many events arrived. */
async function drain(stream: AsyncGenerator<unknown>): Promise<number> {
  let events = 0;
  for await (const _ of stream) if (++events >= MAX_STREAM_EVENTS) break;
  return events;
}

/** Makes the operation's call; resolves with the number of results (events for a stream). */
async function invoke(call: BindingCall, operation: ProbeOperation): Promise<number> {
  const taskId = `missive-conformance-${randomUUID()}`;
  // The interface's tenant goes on every request through the client's tenant decorator.
  const { transport } = a2aClient(call);
  switch (operation) {
    case 'SendMessage':
      await transport.unary('SendMessage', textMessage());
      return 1;
    case 'SendStreamingMessage':
      return drain(transport.stream('SendStreamingMessage', textMessage()));
    case 'SubscribeToTask':
      return drain(transport.stream('SubscribeToTask', { id: taskId }));
    case 'GetTask':
    case 'CancelTask':
      await transport.unary(operation, { id: taskId });
      return 1;
    case 'ListTasks':
      await transport.unary('ListTasks', { pageSize: 1 });
      return 1;
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      await transport.unary(operation, { taskId, id: randomUUID() });
      return 1;
    case 'ListTaskPushNotificationConfigs':
      await transport.unary(operation, { taskId });
      return 1;
    case 'GetExtendedAgentCard':
      await transport.unary('GetExtendedAgentCard', {});
      return 1;
    case 'CreateTaskPushNotificationConfig':
      throw new Error('unreachable: the push-config create is never probed');
  }
}

const cell = (operation: ProbeOperation, status: CellStatus, note: string | null, extra: Partial<ProbeCell> = {}): ProbeCell => ({
  operation,
  status,
  code: null,
  message: null,
  note,
  latency_ms: null,
  ...extra,
});

/** The cell of one operation on one interface: decided from the card, or by making the call. */
async function probeCell(target: Target, spec: OperationSpec, advertised: boolean, includeSend: boolean): Promise<ProbeCell> {
  const { iface, call } = target;
  if (!advertised) return cell(spec.name, 'not_advertised', `the card does not advertise ${spec.capability}`);
  if (iface.dialect === '0.3' && !spec.inV03) return cell(spec.name, 'not_in_0.3', 'A2A 0.3 has no such operation');
  if (spec.writes === 'never') return cell(spec.name, 'skipped', 'not read-only: it would write a config at the agent');
  if (spec.writes === 'send' && !includeSend) return cell(spec.name, 'skipped', 'not read-only: run with --include-send');
  if (call instanceof MissiveError) return cell(spec.name, 'failed', 'no call could be made', { code: call.code, message: call.message });
  const wire = createWireCapture();
  const start = performance.now();
  try {
    const results = await invoke({ ...call, wire }, spec.name);
    const latency = elapsed(start);
    if (spec.expect === 'task_not_found') {
      const what = results ? 'answered with a result' : 'ended without an event or error';
      return cell(spec.name, 'failed', 'expected TaskNotFound', {
        code: 'missive::protocol::task_not_found_expected',
        message: `${spec.name} of a task that cannot exist ${what} instead of TaskNotFound`,
        latency_ms: latency,
      });
    }
    return cell(spec.name, 'ok', spec.name === 'SendStreamingMessage' ? `${results} event(s)` : null, { latency_ms: latency });
  } catch (error) {
    const latency = elapsed(start);
    const err = toMissiveError(error);
    if (spec.expect === 'task_not_found' && isTaskNotFound(err, wire.exchanges())) return cell(spec.name, 'ok', 'TaskNotFound', { latency_ms: latency });
    return cell(spec.name, 'failed', null, { code: err.code, message: err.message, latency_ms: latency });
  }
}

const columnId = (iface: SelectedInterface) => `${iface.binding}/${iface.dialect}`;

/** Probes every interface of the agent's card; never throws for what an interface answers, only for the card itself. */
export async function runConformance(core: Core, alias: string, options: ProbeOptions = {}): Promise<ConformanceReport> {
  const includeSend = options.includeSend === true;
  const started = performance.now();
  const card = await loadCard(core, alias, true);
  const cardLatency = elapsed(started);
  const interfaces: ProbeInterface[] = [];
  const seen = new Map<string, number>();
  for (const { iface, supported } of await targets(core, alias, card)) {
    // The same binding and dialect twice (two URLs): the second column gets a number.
    const base = columnId(iface);
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    const column: ProbeInterface = {
      id: count === 1 ? base : `${base}#${count}`,
      binding: iface.binding,
      protocol_binding: iface.protocol_binding,
      url: redactUrl(iface.url),
      protocol_version: iface.protocol_version,
      dialect: iface.dialect,
      probed: supported,
      cells: [],
    };
    interfaces.push(column);
    if (!supported) continue;
    let call: Target['call'];
    try {
      call = await callFor(core, alias, iface);
    } catch (error) {
      call = toMissiveError(error);
    }
    for (const spec of OPERATIONS) column.cells.push(await probeCell({ iface, call }, spec, advertises(card.card, spec.capability), includeSend));
  }
  const summary: Record<CellStatus, number> = { ok: 0, failed: 0, skipped: 0, not_advertised: 0, 'not_in_0.3': 0 };
  for (const column of interfaces) for (const c of column.cells) summary[c.status]++;
  const passed = summary.failed === 0;
  return {
    alias: card.agent.alias,
    card: { name: card.card.wire.name, format: card.card.format, url: redactUrl(card.url), status: card.status, latency_ms: cardLatency },
    include_send: includeSend,
    operations: OPERATIONS.map((o) => o.name),
    interfaces,
    summary,
    passed,
    exit_code: passed ? 0 : CONFORMANCE_FAILED_EXIT,
  };
}
