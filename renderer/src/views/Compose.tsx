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
import { Empty, ErrorBox, Field, JsonTree, stateClass, Tabs } from '../components/common';
import { WireView } from '../components/WireView';
import { VirtualList } from '../components/VirtualList';
import { CopyAs } from '../components/CopyAs';
import { commandOfMessage, curlOfPreview, curlOfWire } from '../components/copy-text';
import { describeCarried, draftOf, EMPTY_DRAFT, inputsOf, type Draft, type FileKind } from './compose-draft';
import type { EventPayload, MessageInputs, WireExchange } from '../../../shared/ipc/contract';

type StreamEvent = EventPayload<'messages.stream.event'> & Record<string, any>;
type Mode = 'send' | 'stream';

/** One call as Compose made it: what was sent and what came back. */
interface Sent {
  agent: string;
  mode: Mode;
  inputs: MessageInputs;
  result: Record<string, any> & { wire?: WireExchange[] };
}

/** The answer's text: the direct message, the task's status message, or the stream's last message text. */
export function answerText(result: Record<string, any>): string {
  const texts = (parts: any[] | undefined) =>
    parts
      ?.map((p) => p?.text)
      .filter((t) => typeof t === 'string')
      .join('\n');
  return texts(result.response?.message?.parts) ?? texts(result.response?.task?.status?.message?.parts) ?? result.last_message_text ?? '';
}

/** The exchange that carried the message itself (not, say, a card fetch), for "Copy as curl" after sending. */
const messageExchange = (wire: WireExchange[] | undefined) => wire?.find((x) => /SendMessage|SendStreamingMessage/.test(x.operation)) ?? wire?.[0];

const sameRequest = (a: { agent: string; mode: Mode; inputs: MessageInputs }, b: { agent: string; mode: Mode; inputs: MessageInputs }) => a.agent === b.agent && a.mode === b.mode && JSON.stringify(a.inputs) === JSON.stringify(b.inputs);

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

  const send = useAction(async (req: Omit<Sent, 'result'>): Promise<Sent> => {
    const run = send.runId();
    pending.current = [];
    setTimeline([]);
    setTab('answer');
    send.setData(null);
    streamingRun.current = req.mode === 'stream' ? run : null;
    try {
      const result = req.mode === 'send' ? await call('messages.send', { agent: req.agent, inputs: req.inputs, wire: true }) : await call('messages.stream', { agent: req.agent, inputs: req.inputs, wire: true });
      // Only the stream's own events stay, should a superseded stream have sent some meanwhile.
      const ctx = (result as any).context_id ?? (result as any).task?.context_id;
      if (req.mode === 'stream' && ctx && send.runId() === run) setTimeline((t) => t.filter((e) => e.context_id === ctx || e.context_id == null));
      return { ...req, result };
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
      pending.current.push(e as StreamEvent);
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

const withoutWire = ({ wire: _wire, ...rest }: Record<string, any>) => rest;

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
  const r = sent.result;
  const contextId: string | null = r.context_id ?? r.task?.context_id ?? r.request?.context_id ?? null;
  return (
    <div className="card" data-testid="send-result">
      <div>
        <strong>{sent.agent}</strong> {sent.mode === 'send' ? `answered with a ${r.response_shape}` : `${r.events} events`}
        {r.task ? <span className={stateClass(r.task.state)}> {r.task.state}</span> : null}
        {r.task?.task_id ? <span className="mono muted"> task {r.task.task_id}</span> : null}
      </div>
      <div className="answer" data-testid="answer">
        {answerText(r)}
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
