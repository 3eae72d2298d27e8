/**
 * A `missive.context_export.v1` document → a Recording (without its card): each request the chosen agent received, in
 * order, with what it answered, read from the journal events the export holds:
 * - a stream: every `a2a.stream.<variant>` event of the request, in order, at its time;
 * - a send: the answered task or message as one event, the task as it was at that turn (its state and status message
 *   from the send's completion, its artifacts as listed there), at the time the answer came;
 * - later states the journal saw of the exchange's task (`a2a.task.updated` from GetTask or a gateway's polls,
 *   `a2a.subscription.<variant>`) follow as events; push callbacks (`a2a.push.<variant>`) are its `callbacks`;
 * - an A2A error the agent answered (`a2a.<op>.failed` of category protocol) is its `error`. A request that got no
 *   answer (a transport or auth failure) is left out: there is nothing to replay.
 */
import { usageError } from '../../../shared/errors.js';
import type { TaskState } from '../../../shared/task-states.js';
import type { JsonObject } from '../a2a/operations.js';
import { A2A_ERROR_SPECS } from '../a2a/a2a-errors.js';
import { textOfParts } from '../a2a/part-text.js';
import { wireTaskState } from '../tasks/task-state.js';
import type { ContextExport, ExportEvent, ExportMessage } from './export-document.js';
import type { RecordedEvent, RecordedExchange, Recording } from './recording.js';

/** The payload key each update variant is journaled under. */
const VARIANT_KEY = { task: 'task', message: 'message', status_update: 'statusUpdate', artifact_update: 'artifactUpdate' } as const;
type Variant = keyof typeof VARIANT_KEY;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const offset = (from: string, at: string) => Math.max(0, Date.parse(at) - Date.parse(from) || 0);

/** The update an `a2a.<prefix>.<variant>` event carries, or null for any other event. */
function updateOf(e: ExportEvent, prefix: string): { kind: Variant; body: JsonObject } | null {
  if (!e.event_type.startsWith(`${prefix}.`)) return null;
  const kind = e.event_type.slice(prefix.length + 1) as Variant;
  const body = VARIANT_KEY[kind] ? e.payload[VARIANT_KEY[kind]] : undefined;
  return isObject(body) ? { kind, body } : null;
}

const REQUEST_EVENT = /^a2a\.(send|stream)\.(started|completed|failed)$/;

/** The journaled error as the recording keeps it, or null when the agent did not answer it (not a protocol error). */
function agentError(payload: JsonObject): RecordedExchange['error'] | null {
  const report = payload.error as { code?: unknown; message?: unknown; category?: unknown } | undefined;
  if (typeof report?.code !== 'string' || !report.code.startsWith('missive::protocol::')) return null;
  const reason = report.code.slice('missive::protocol::'.length);
  const spec = A2A_ERROR_SPECS.find((s) => s.code === reason);
  const message = typeof report.message === 'string' ? report.message.replace(/^protocol error: /, '') : 'the agent answered an error';
  return { code: report.code, message, ...(spec ? { a2a: spec.name } : {}) };
}

interface Indexed {
  starts: Map<string, ExportEvent>;
  ends: Map<string, ExportEvent>;
  streamed: Map<string, ExportEvent[]>;
  /** Events about a task after the requests (GetTask, subscriptions, push callbacks), by task id. */
  later: Map<string, ExportEvent[]>;
}

function indexEvents(events: readonly ExportEvent[]): Indexed {
  const ix: Indexed = { starts: new Map(), ends: new Map(), streamed: new Map(), later: new Map() };
  const push = <K, V>(map: Map<K, V[]>, key: K, value: V) => (map.get(key) ?? map.set(key, []).get(key)!).push(value);
  for (const e of [...events].sort((a, b) => a.sequence - b.sequence)) {
    const request = REQUEST_EVENT.exec(e.event_type);
    if (request) {
      const id = String(e.payload.message_id);
      if (request[2] === 'started') ix.starts.set(id, e);
      else if (!ix.ends.has(id)) ix.ends.set(id, e);
    } else if (updateOf(e, 'a2a.stream')) push(ix.streamed, String(e.payload.request_message_id), e);
    else if (e.task_id && (e.event_type === 'a2a.task.updated' || updateOf(e, 'a2a.subscription') || updateOf(e, 'a2a.push'))) push(ix.later, e.task_id, e);
  }
  return ix;
}

/** A task's status at a later observation (`a2a.task.updated` names only the state) as a status update. */
function laterEvent(e: ExportEvent, contextId: string | undefined): { kind: Variant; body: JsonObject } | null {
  if (e.event_type !== 'a2a.task.updated') return updateOf(e, 'a2a.subscription');
  const state = typeof e.payload.remote_state === 'string' ? e.payload.remote_state : wireTaskState(e.payload.state as TaskState);
  return state ? { kind: 'status_update', body: { taskId: e.task_id, ...(contextId ? { contextId } : {}), status: { state } } } : null;
}

interface Draft {
  exchange: Omit<RecordedExchange, 'index'>;
  agent: string | null;
  base: string;
  taskId: string | null;
  contextId: string | undefined;
  /** The journal sequence of its last event: later events of its task belong to the last exchange before them. */
  lastSequence: number;
}

export function recordingFromExport(doc: ContextExport, source: string, options: { agent?: string } = {}): Recording {
  const ix = indexEvents(doc.events);
  const messages = new Map(doc.messages.map((m) => [m.message_id, m]));
  const tasks = new Map(doc.tasks.map((t) => [t.task_id, t]));
  const artifactContent = (taskId: string, artifactId: string) =>
    doc.artifacts.find((a) => a.task_id === taskId && a.artifact_id === artifactId)?.content ?? undefined;
  const answeredTasks = new Map<string, number>();
  for (const end of ix.ends.values()) {
    const taskId = (end.payload.task as JsonObject | undefined)?.task_id;
    if (end.event_type === 'a2a.send.completed' && typeof taskId === 'string') answeredTasks.set(taskId, end.sequence);
  }

  /** The task a send answered, as it was then: the stored task when this was its last answer, else rebuilt. */
  const sendTask = (end: ExportEvent, request: ExportMessage): JsonObject => {
    const summary = end.payload.task as { task_id: string; context_id?: string; state?: string; artifacts?: Array<{ artifact_id: string }> };
    const state = wireTaskState((summary.state ?? 'unknown') as TaskState) ?? 'TASK_STATE_UNSPECIFIED';
    const remote = tasks.get(summary.task_id)?.remote_task;
    const artifacts = (summary.artifacts ?? []).map((a) => artifactContent(summary.task_id, a.artifact_id)).filter(isObject);
    if (remote && answeredTasks.get(summary.task_id) === end.sequence && (remote.status as JsonObject | undefined)?.state === state)
      return remote.artifacts || !artifacts.length ? remote : { ...remote, artifacts };
    const response = messages.get(String(end.payload.response_message_id));
    const message = response && response.role === 'agent' && isObject(response.content) && response.content.messageId ? response.content : undefined;
    return {
      id: summary.task_id,
      ...(summary.context_id ? { contextId: summary.context_id } : {}),
      status: { state, ...(message ? { message } : {}) },
      ...(artifacts.length ? { artifacts } : {}),
      history: [request.content],
    };
  };

  const drafts: Draft[] = [];
  for (const request of doc.messages) {
    if (request.direction !== 'request') continue;
    const id = request.message_id;
    const start = ix.starts.get(id);
    const end = ix.ends.get(id);
    const streamed = ix.streamed.get(id) ?? [];
    const kind = (start ?? end)?.event_type.split('.')[1] ?? (streamed.length ? 'stream' : null);
    if (kind !== 'send' && kind !== 'stream') continue;
    const base = start?.timestamp ?? request.created_at;
    const events: RecordedEvent[] = [];
    if (kind === 'stream') for (const e of streamed) events.push({ offset_ms: offset(base, e.timestamp), ...updateOf(e, 'a2a.stream')! });
    else if (end?.event_type === 'a2a.send.completed') {
      if (end.payload.response_shape === 'message') {
        const row = messages.get(String(end.payload.response_message_id));
        if (row) events.push({ offset_ms: offset(base, end.timestamp), kind: 'message', body: row.content });
      } else if (isObject(end.payload.task)) events.push({ offset_ms: offset(base, end.timestamp), kind: 'task', body: sendTask(end, request) });
    }
    const error = end?.event_type.endsWith('.failed') ? agentError(end.payload) : null;
    if (!events.length && !error) continue;
    const taskId = end?.task_id ?? streamed.find((e) => e.task_id)?.task_id ?? request.task_id ?? null;
    drafts.push({
      exchange: {
        operation: kind,
        request: request.content,
        text: textOfParts(request.content.parts) ?? '',
        events,
        ...(error ? { error } : {}),
      },
      agent: request.agent_alias,
      base,
      taskId,
      contextId: (request.content.contextId as string | undefined) ?? (end?.payload.task as JsonObject | undefined)?.context_id,
      lastSequence: Math.max(start?.sequence ?? 0, end?.sequence ?? 0, ...streamed.map((e) => e.sequence)),
    });
  }

  // Later observations of a task go to the last exchange on that task before them.
  for (const [taskId, later] of ix.later) {
    const onTask = drafts.filter((d) => d.taskId === taskId);
    for (const e of later) {
      const owner = onTask.filter((d) => d.lastSequence < e.sequence).at(-1);
      if (!owner) continue;
      const pushed = updateOf(e, 'a2a.push');
      if (pushed) (owner.exchange.callbacks ??= []).push({ offset_ms: offset(owner.base, e.timestamp), ...pushed });
      else {
        const update = laterEvent(e, owner.contextId);
        if (update) owner.exchange.events.push({ offset_ms: offset(owner.base, e.timestamp), ...update });
      }
    }
  }

  const agents = [...new Set(drafts.map((d) => d.agent).filter((a): a is string => a !== null))];
  const agent = options.agent ?? agents[0];
  if (!agent || !agents.includes(agent))
    throw usageError(
      'empty_recording',
      options.agent && agents.length
        ? `${source} holds no answered request to agent "${options.agent}" (it holds requests to ${agents.map((a) => `"${a}"`).join(', ')})`
        : `${source} holds no send or stream an agent answered: there is nothing to replay`,
      agents.length ? `Pick one of them with --agent.` : 'Record a conversation first: missive send <agent> <text> --context <id>.',
    );
  const exchanges = drafts.filter((d) => d.agent === agent).map((d, index) => ({ index, ...d.exchange }));
  return { source, agent, card: null, exchanges };
}
