/**
 * Compose: send or stream a message to one agent, always capturing the wire. The form keeps its state while other
 * views are shown (the view stays mounted) and can be filled from History ("Open in Compose"). After a call the
 * result shows as tabs: Answer (text, task state, the stream's live timeline), Wire (every HTTP exchange and SSE
 * frame) and JSON. A new send supersedes one still running: the older call's result is ignored when it arrives.
 */
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { call, subscribe } from '../api';
import { useAction, useLoad } from '../hooks';
import { useStore } from '../store';
import { Empty, ErrorBox, Field, jsonAt, JsonTree, stateClass, stringOf, Tabs } from '../components/common';
import { WireView } from '../components/WireView';
import { VirtualList } from '../components/VirtualList';
import { CopyAs } from '../components/CopyAs';
import { commandOfMessage, curlOfPreview, curlOfWire } from '../components/copy-text';
import { describeCarried, draftOf, EMPTY_DRAFT, inputsOf, type Draft, type FileKind } from './compose-draft';
import type { ChannelOutput, EventPayload, MessageInputs, WireExchange } from '../../../shared/ipc/contract';

type Mode = 'send' | 'stream';

/** One event of the running stream, as the timeline shows it. */
interface StreamEvent {
  sequence: number;
  variant: string;
  state: string | null;
  text: string | null;
  context_id: string | null;
  artifact: { artifact_id: string; version: number; last_chunk: boolean } | null;
}

/** A `messages.stream.event` (its channel types the sequence and variant; the rest is the core's applied update). */
function streamEvent(e: EventPayload<'messages.stream.event'>): StreamEvent {
  const artifactId = stringOf(jsonAt(e.artifact, 'artifact_id'));
  const version = jsonAt(e.artifact, 'version');
  return {
    sequence: e.sequence,
    variant: e.variant,
    state: stringOf(e.state),
    text: stringOf(e.text),
    context_id: stringOf(e.context_id),
    artifact: artifactId !== null && typeof version === 'number' ? { artifact_id: artifactId, version, last_chunk: jsonAt(e.artifact, 'last_chunk') === true } : null,
  };
}

/** A request as Compose holds it: the agent, send or stream, and the inputs. */
interface Request {
  agent: string;
  mode: Mode;
  inputs: MessageInputs;
}

/** One call as Compose made it: what was sent and what came back. */
type Sent = Omit<Request, 'mode'> & ({ mode: 'send'; result: ChannelOutput<'messages.send'> } | { mode: 'stream'; result: ChannelOutput<'messages.stream'> });

/** The texts of A2A parts, joined; undefined when `parts` is not a list. */
const partsText = (parts: unknown) =>
  Array.isArray(parts)
    ? parts
        .map((p) => jsonAt(p, 'text'))
        .filter((t) => typeof t === 'string')
        .join('\n')
    : undefined;

/** The answer's text: the direct message, the task's status message, or the stream's last message text. */
function answerText(sent: Sent): string {
  if (sent.mode === 'stream') return sent.result.last_message_text ?? '';
  const { response } = sent.result;
  return partsText(jsonAt(response, 'message', 'parts')) ?? partsText(jsonAt(response, 'task', 'status', 'message', 'parts')) ?? '';
}

/**
 * The context the answer lives in (the journal's choice too): the task's; for a send answered by a message, the one
 * the message names; for a stream, the last one its events named; else the request's.
 */
function answerContext(sent: Sent): string | null {
  const r = sent.result;
  const answered = sent.mode === 'stream' ? sent.result.context_id : stringOf(jsonAt(sent.result.response, 'message', 'contextId')) || null;
  return r.task?.context_id ?? answered ?? r.request.context_id;
}

/** The exchange that carried the message itself (not, say, a card fetch), for "Copy as curl" after sending. */
const messageExchange = (wire: WireExchange[] | undefined) => wire?.find((x) => /SendMessage|SendStreamingMessage/.test(x.operation)) ?? wire?.[0];

const sameRequest = (a: Request, b: Request) => a.agent === b.agent && a.mode === b.mode && JSON.stringify(a.inputs) === JSON.stringify(b.inputs);

export function ComposeView() {
  const { composeRequest, noteJournalChanged } = useStore();
  const agents = useLoad(() => call('agents.list', {}), []);
  const contexts = useLoad(() => call('contexts.list', {}), []);
  const [agent, setAgent] = useState('');
  const [mode, setMode] = useState<Mode>('send');
  const [draft, setDraft] = useState<Draft>(EMPTY_DRAFT);
  const edit = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const [timeline, setTimeline] = useState<StreamEvent[]>([]);
  const [tab, setTab] = useState<'answer' | 'wire' | 'json'>('answer');
  const [moreOpen, setMoreOpen] = useState(false);
  /** The run whose stream the live events belong to (null: none); a superseded stream's events are not shown. */
  const streamingRun = useRef<number | null>(null);

  // "Open in Compose" from History: fill the form once per request (a nonce per open).
  const applied = useRef(0);
  useEffect(() => {
    if (!composeRequest || composeRequest.nonce === applied.current) return;
    applied.current = composeRequest.nonce;
    if (composeRequest.agent) setAgent(composeRequest.agent);
    setMode(composeRequest.mode);
    const reopened = draftOf(composeRequest.inputs);
    setDraft(reopened);
    // Options the reopened request set are shown, not hidden in the closed "More options".
    if (reopened.binding || reopened.metadata || reopened.outputModes || reopened.returnImmediately) setMoreOpen(true);
  }, [composeRequest]);

  const send = useAction(async (req: Request): Promise<Sent> => {
    const run = send.runId();
    pending.current = [];
    setTimeline([]);
    setTab('answer');
    send.setData(null);
    streamingRun.current = req.mode === 'stream' ? run : null;
    try {
      const args = { agent: req.agent, inputs: req.inputs, wire: true };
      const sent: Sent = req.mode === 'send' ? { ...req, mode: 'send', result: await call('messages.send', args) } : { ...req, mode: 'stream', result: await call('messages.stream', args) };
      // Only the stream's own events stay, should a superseded stream have sent some meanwhile.
      const ctx = sent.mode === 'stream' ? (sent.result.context_id ?? sent.result.task?.context_id) : null;
      if (ctx && send.runId() === run) setTimeline((t) => t.filter((e) => e.context_id === ctx || e.context_id == null));
      return sent;
    } finally {
      if (streamingRun.current === run) streamingRun.current = null;
      noteJournalChanged();
      void contexts.run();
    }
  });
  // Live events are appended once per animation frame, so a fast stream costs one render per frame, not per event.
  const pending = useRef<StreamEvent[]>([]);
  useEffect(() => {
    let frame: number | null = null;
    const off = subscribe('messages.stream.event', (e) => {
      if (streamingRun.current === null || streamingRun.current !== send.runId()) return;
      pending.current.push(streamEvent(e));
      frame ??= requestAnimationFrame(() => {
        frame = null;
        const batch = pending.current;
        pending.current = [];
        setTimeline((t) => [...t, ...batch]);
      });
    });
    return () => {
      off();
      if (frame !== null) cancelAnimationFrame(frame);
    };
  }, [send.runId]);

  const list = agents.data?.agents ?? [];
  const target = agent || list[0]?.alias || '';
  const inputs = inputsOf(draft);
  const request = { agent: target, mode, inputs };
  const sent = send.data;
  const failedWire = send.error?.wire;
  const contextRows = contexts.data?.contexts ?? [];
  const carried = describeCarried(draft.carried);
  const submit = () => {
    if (target) void send.run(request);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
      e.preventDefault();
      submit();
    }
  };

  return (
    <section className="view" data-testid="view-compose" onKeyDown={onKeyDown}>
      <h2>Compose</h2>
      {agents.data && list.length === 0 ? <Empty title="No agents to talk to">Register an agent (or start the demo agents) in the Agents view first.</Empty> : null}
      <ErrorBox error={agents.error} />
      <div className="row">
        <Field label="Agent">
          <select name="agent" value={target} onChange={(e) => setAgent(e.target.value)}>
            {target && !list.some((a) => a.alias === target) ? <option value={target}>{target} (not registered)</option> : null}
            {list.map((a) => (
              <option key={a.alias} value={a.alias}>
                {a.alias}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Context">
          <select name="context" value={draft.context} onChange={(e) => edit({ context: e.target.value })}>
            <option value="">new context</option>
            {draft.context && !contextRows.some((c) => c.context_id === draft.context) ? <option value={draft.context}>{draft.context}</option> : null}
            {contextRows.map((c) => (
              <option key={c.context_id} value={c.context_id}>
                {c.name ?? c.context_id}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Mode">
          <select name="mode" value={mode} onChange={(e) => setMode(e.target.value as Mode)}>
            <option value="send">send (SendMessage)</option>
            <option value="stream">stream (SendStreamingMessage)</option>
          </select>
        </Field>
      </div>
      <Field label="Text part">
        <textarea name="text" rows={4} value={draft.text} onChange={(e) => edit({ text: e.target.value })} placeholder="Ask the agent something (Ctrl+Enter sends)" />
      </Field>
      <Field label="JSON data part (optional)">
        <input name="json" value={draft.json} onChange={(e) => edit({ json: e.target.value })} placeholder='e.g. {"key": "value"}' />
      </Field>
      <div className="row">
        <Field label="Files (paths, comma separated)">
          <input name="files" value={draft.files} onChange={(e) => edit({ files: e.target.value })} placeholder="e.g. /path/notes.md" />
        </Field>
        <Field label="Send files as">
          <select name="file-kind" value={draft.fileKind} onChange={(e) => edit({ fileKind: e.target.value as FileKind })}>
            <option value="files">text part (UTF-8)</option>
            <option value="fileUrls">file:// url part (no bytes sent)</option>
            <option value="fileBytes">raw bytes part (base64)</option>
          </select>
        </Field>
      </div>
      <details className="more-options" open={moreOpen} onToggle={(e) => setMoreOpen(e.currentTarget.open)}>
        <summary>More options (binding, metadata, output modes)</summary>
        <div className="row">
          <Field label="Binding">
            <select name="binding" value={draft.binding} onChange={(e) => edit({ binding: e.target.value as Draft['binding'] })}>
              <option value="">negotiated (card order)</option>
              <option value="http+json">HTTP+JSON</option>
              <option value="json-rpc">JSON-RPC</option>
              <option value="grpc">gRPC</option>
            </select>
          </Field>
          <Field label="Accepted output modes (comma separated)">
            <input name="output-modes" value={draft.outputModes} onChange={(e) => edit({ outputModes: e.target.value })} placeholder="e.g. text/plain, application/json" />
          </Field>
        </div>
        <Field label="Metadata (one key=value per line, not secret)">
          <textarea name="metadata" rows={2} value={draft.metadata} onChange={(e) => edit({ metadata: e.target.value })} placeholder="e.g. ticket=OPS-12" />
        </Field>
        <label className="check">
          <input type="checkbox" name="return-immediately" checked={draft.returnImmediately} onChange={(e) => edit({ returnImmediately: e.target.checked })} /> Return immediately (the agent answers with the task at once)
        </label>
      </details>
      {carried ? (
        <p className="carried" data-testid="carried">
          Also sends, from the reopened request: {carried}.{' '}
          <button type="button" className="link" onClick={() => edit({ carried: {} })}>
            Drop them
          </button>
        </p>
      ) : null}
      <div className="row actions">
        <button onClick={submit} disabled={!target} data-testid="send">
          {mode === 'send' ? 'Send' : 'Stream'}
        </button>
        {send.busy ? (
          <>
            <span className="muted" role="status" data-testid="send-busy">
              {mode === 'stream' && streamingRun.current !== null ? 'Streaming…' : 'Waiting for the answer…'} Sending again replaces this call's result.
            </span>
            <button type="button" className="secondary" onClick={send.cancel}>
              Stop waiting
            </button>
          </>
        ) : null}
        {target ? (
          <CopyAs
            testId="compose-copy"
            label="this request"
            command={() => commandOfMessage(mode, target, inputs)}
            curl={() => {
              const exchange = sent && sameRequest(sent, request) ? messageExchange(sent.result.wire) : undefined;
              return exchange ? curlOfWire(exchange.request) : curlOfPreview({ agent: target }, mode, inputs);
            }}
          />
        ) : null}
      </div>
      <ErrorBox error={send.error} />
      {send.error && failedWire?.length ? (
        <div className="card" data-testid="failed-wire">
          <h3>Wire of the failed call</h3>
          <WireView exchanges={failedWire} />
        </div>
      ) : null}
      {!sent && timeline.length ? <Timeline events={timeline} /> : null}
      {sent ? (
        <Tabs
          label="Result"
          value={tab}
          onChange={setTab}
          tabs={[
            { id: 'answer', label: 'Answer', render: () => <Answer sent={sent} timeline={timeline} onContinue={(ctx) => edit({ context: ctx })} /> },
            { id: 'wire', label: `Wire (${sent.result.wire?.length ?? 0})`, render: () => <WireView exchanges={sent.result.wire} /> },
            { id: 'json', label: 'JSON', render: () => <JsonTree value={withoutWire(sent.result)} label="result" /> },
          ]}
        />
      ) : null}
    </section>
  );
}

const withoutWire = ({ wire: _wire, ...rest }: Sent['result']) => rest;

/** Timelines up to this many events render in full; longer ones scroll in a virtual list. */
const FULL_TIMELINE = 300;

function TimelineItem({ e }: { e: StreamEvent }) {
  return (
    <>
      <span className="mono">#{e.sequence}</span> <strong>{e.variant}</strong> {e.state ? <span className={stateClass(e.state)}>{e.state}</span> : null}
      {e.artifact ? <span className="chip">{`${e.artifact.artifact_id} v${e.artifact.version}${e.artifact.last_chunk ? ' ✓' : ''}`}</span> : null} {e.text ?? ''}
    </>
  );
}

function Timeline({ events }: { events: StreamEvent[] }) {
  if (events.length > FULL_TIMELINE) {
    return (
      <div className="timeline" aria-label="stream events">
        <p className="muted">{events.length} events</p>
        <VirtualList
          testId="timeline"
          items={events}
          rowHeight={24}
          height={360}
          render={(e) => (
            <div className="timeline-row">
              <TimelineItem e={e} />
            </div>
          )}
        />
      </div>
    );
  }
  return (
    <ol className="timeline" data-testid="timeline" aria-label="stream events">
      {events.map((e) => (
        <li key={e.sequence}>
          <TimelineItem e={e} />
        </li>
      ))}
    </ol>
  );
}

function Answer({ sent, timeline, onContinue }: { sent: Sent; timeline: StreamEvent[]; onContinue: (contextId: string) => void }) {
  const task = sent.result.task;
  const contextId = answerContext(sent);
  return (
    <div className="card" data-testid="send-result">
      <div>
        <strong>{sent.agent}</strong> {sent.mode === 'send' ? `answered with a ${sent.result.response_shape}` : `${sent.result.events} events`}
        {task ? <span className={stateClass(task.state)}> {task.state}</span> : null}
        {task ? <span className="mono muted"> task {task.task_id}</span> : null}
      </div>
      <div className="answer" data-testid="answer">
        {answerText(sent)}
      </div>
      {sent.mode === 'stream' && timeline.length ? <Timeline events={timeline} /> : null}
      {contextId ? (
        <p className="muted">
          context <span className="mono">{contextId}</span>{' '}
          <button type="button" className="link" onClick={() => onContinue(contextId)}>
            Continue in this context
          </button>
        </p>
      ) : null}
    </div>
  );
}
