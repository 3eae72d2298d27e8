/**
 * Compose: a conversation with one agent, always capturing the wire. On the left the conversation (the thread of the
 * context the next message goes to) above the request form; on the right the answer of the last call, as tabs:
 * Answer (rendered as it arrives: text, status messages, artifacts, the stream's timeline), Wire and JSON. Under
 * 1100 px the two panes become "Request" and "Answer" switches, and sending shows the answer. After each answer the
 * next message continues its context, and replies in its task when the agent is waiting for input; "New
 * conversation" (or picking another agent) starts afresh. The form keeps its state while other views are shown and
 * can be filled from History ("Open in Compose"). A new send supersedes one still running.
 */
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { call, subscribe } from '../api';
import { useAction, useLoad } from '../hooks';
import { useStore } from '../store';
import { Empty, ErrorBox, JsonTree, Tabs } from '../components/common';
import { WireView } from '../components/WireView';
import { commandOfMessage, curlOfPreview, curlOfWire } from '../components/copy-text';
import { Answer, type Sent } from '../components/Answer';
import { Conversation } from '../components/Conversation';
import { answerOfSend, assembleStream, isAwaiting, streamEvent, type StreamEvent } from '../components/answer-model';
import { draftOf, EMPTY_DRAFT, inputsOf, previewInputsOf, type Draft } from './compose-draft';
import { ComposeForm, type Mode } from './ComposeForm';
import { FollowedTask } from '../components/FollowedTask';
import type { FollowView } from '../components/use-followed-task';
import type { SendInputs, WireExchange } from '../../../shared/ipc/contract';
import '../compose.css';

/** A request as Compose holds it: the agent, send or stream, and the inputs. */
interface Request {
  agent: string;
  mode: Mode;
  inputs: SendInputs;
}

/** The exchange that carried the message itself (not, say, a card fetch), for "Copy as curl" after sending. */
const messageExchange = (wire: WireExchange[] | undefined) => wire?.find((x) => /SendMessage|SendStreamingMessage/.test(x.operation)) ?? wire?.[0];

const sameRequest = (a: Request, b: Request) => a.agent === b.agent && a.mode === b.mode && JSON.stringify(a.inputs) === JSON.stringify(b.inputs);

/** Where a finished call leaves the conversation: the answer's context, and its task and state. */
function nextTurnOf(sent: Sent): { contextId: string | null; taskId: string | null; state: string | null } {
  if (sent.mode === 'send') return answerOfSend(sent.result);
  const r = sent.result;
  return { contextId: r.context_id ?? r.task?.context_id ?? r.request.context_id, taskId: r.task?.task_id ?? null, state: r.task?.state ?? null };
}

/** The answer of a finished call: a send's from its result, a stream's assembled from its events. */
const modelOf = (sent: Sent, timeline: StreamEvent[]) =>
  sent.mode === 'send' ? answerOfSend(sent.result) : assembleStream(timeline, sent.result.context_id ?? sent.result.request.context_id);

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
  /** Which pane shows under 1100 px (both show when wider). */
  const [pane, setPane] = useState<'request' | 'answer'>('request');
  /** Goes up after every call, so the conversation reloads its thread. */
  const [turn, setTurn] = useState(0);
  const textBox = useRef<HTMLTextAreaElement>(null);
  const answerPane = useRef<HTMLDivElement>(null);
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
    setPane('request');
    // Options the reopened request set are shown, not hidden in the closed "More options".
    if (reopened.binding || reopened.metadata || reopened.outputModes || reopened.returnImmediately || reopened.fileKind !== 'files') setMoreOpen(true);
    // The message box takes the focus (after the render that shows the view and the request pane).
    requestAnimationFrame(() => textBox.current?.focus());
  }, [composeRequest]);

  const send = useAction(async (req: Request): Promise<Sent> => {
    const run = send.runId();
    pending.current = [];
    setTimeline([]);
    setTab('answer');
    setPane('answer');
    answerPane.current?.scrollTo({ top: 0 });
    send.setData(null);
    streamingRun.current = req.mode === 'stream' ? run : null;
    try {
      const args = { agent: req.agent, inputs: req.inputs, wire: true };
      const sent: Sent =
        req.mode === 'send'
          ? { ...req, mode: 'send', result: await call('messages.send', args) }
          : { ...req, mode: 'stream', result: await call('messages.stream', args) };
      if (send.runId() !== run) return sent;
      // Only the stream's own events stay, should a superseded stream have sent some meanwhile.
      const ctx = sent.mode === 'stream' ? (sent.result.context_id ?? sent.result.task?.context_id) : null;
      if (ctx) setTimeline((t) => t.filter((e) => e.context_id === ctx || e.context_id == null));
      // The conversation goes on: the next message continues the answer's context, and its task when it waits for input.
      const next = nextTurnOf(sent);
      setDraft((d) => ({ ...d, context: next.contextId ?? d.context, taskId: isAwaiting(next.state) && next.taskId ? next.taskId : '' }));
      textBox.current?.select();
      return sent;
    } finally {
      if (streamingRun.current === run) streamingRun.current = null;
      noteJournalChanged();
      setTurn((t) => t + 1);
      void contexts.run();
    }
  });
  // Live events are appended once per animation frame, so a fast stream costs one render per frame, not per event.
  const pending = useRef<StreamEvent[]>([]);
  const sendRunId = send.runId;
  useEffect(() => {
    let frame: number | null = null;
    const off = subscribe('messages.stream.event', (e) => {
      if (streamingRun.current === null || streamingRun.current !== sendRunId()) return;
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
  }, [sendRunId]);

  const list = agents.data?.agents ?? [];
  const target = agent || list[0]?.alias || '';
  const inputs = inputsOf(draft);
  const request = { agent: target, mode, inputs };
  const sent = send.data;
  const streaming = send.busy && streamingRun.current !== null;
  const model = useMemo(
    () => (sent ? modelOf(sent, timeline) : streaming ? assembleStream(timeline, inputs.contextId ?? null) : null),
    [sent, timeline, streaming, inputs.contextId],
  );
  // A task the answer brought is followed until it is final (FollowedTask): its newer state, and its newer status
  // message, replace what the call answered; the next message replies in it while the agent waits for the user.
  const [followed, setFollowed] = useState<{ turn: number; view: FollowView } | null>(null);
  const current = followed && followed.turn === turn && model?.taskId === followed.view.task.task_id ? followed.view : null;
  const shown = useMemo(
    () =>
      model && current && current.task.state !== model.state
        ? { ...model, state: current.task.state, parts: current.status_text ? [{ text: current.status_text }] : model.parts }
        : model,
    [model, current],
  );
  const onFollowed = (view: FollowView) => {
    setFollowed({ turn, view });
    const { task_id: taskId, state, context_id: contextId } = view.task;
    if (isAwaiting(state)) setDraft((d) => (d.taskId === taskId ? d : { ...d, taskId, context: contextId ?? d.context }));
    else setDraft((d) => (d.taskId === taskId ? { ...d, taskId: '' } : d));
  };
  const failedWire = send.error?.wire;
  const submit = () => {
    if (target) void send.run(request);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
      e.preventDefault();
      submit();
    }
  };
  /** A new conversation: no context, no task; what is typed stays. */
  const newConversation = () => {
    edit({ context: '', taskId: '' });
    setPane('request');
    textBox.current?.focus();
  };
  const focusText = () => {
    setPane('request');
    requestAnimationFrame(() => textBox.current?.focus());
  };

  const answer = shown ? (
    <>
      {sent && !send.busy && shown.taskId ? (
        // Compose's own form replies in the task: no second reply box.
        <FollowedTask key={`${turn} ${shown.taskId}`} taskId={shown.taskId} initialState={model?.state} reply={false} onChange={onFollowed} />
      ) : null}
      <Answer
        agent={sent?.agent ?? target}
        sent={sent}
        model={shown}
        timeline={timeline}
        streaming={streaming}
        next={{ contextId: draft.context, taskId: draft.taskId }}
        onContinue={(contextId) => {
          edit({ context: contextId, taskId: isAwaiting(shown.state) && shown.contextId === contextId ? (shown.taskId ?? '') : '' });
          focusText();
        }}
        onReply={(taskId, contextId) => {
          edit({ taskId, context: contextId ?? draft.context });
          focusText();
        }}
      />
    </>
  ) : null;

  return (
    <section className="view compose" data-testid="view-compose" data-pane={pane} onKeyDown={onKeyDown}>
      <div className="compose-top">
        <h2>Compose</h2>
        <div className="compose-switch" role="group" aria-label="pane">
          <button
            type="button"
            className={pane === 'request' ? 'tab active' : 'tab'}
            aria-pressed={pane === 'request'}
            onClick={() => setPane('request')}
            data-testid="compose-show-request"
          >
            Request
          </button>
          <button
            type="button"
            className={pane === 'answer' ? 'tab active' : 'tab'}
            aria-pressed={pane === 'answer'}
            onClick={() => setPane('answer')}
            data-testid="compose-show-answer"
          >
            Answer{send.busy ? ' …' : sent ? ' ✓' : send.error ? ' !' : ''}
          </button>
        </div>
      </div>
      {agents.data && list.length === 0 ? (
        <Empty title="No agents to talk to">Register an agent (or start the demo agents) in the Agents view first.</Empty>
      ) : null}
      <ErrorBox error={agents.error} />
      <div className="compose-panes">
        <div className="compose-pane compose-request" data-testid="compose-request">
          <Conversation agent={target} contextId={draft.context} turn={turn} onNew={newConversation} />
          <ComposeForm
            agents={list.map((a) => a.alias)}
            target={target}
            onAgent={(alias) => {
              setAgent(alias);
              if (alias !== target) edit({ context: '', taskId: '' });
            }}
            mode={mode}
            setMode={setMode}
            draft={draft}
            edit={edit}
            contexts={contexts.data?.contexts ?? []}
            moreOpen={moreOpen}
            setMoreOpen={setMoreOpen}
            submit={submit}
            textRef={textBox}
            copyCommand={() => commandOfMessage(mode, target, previewInputsOf(inputs))}
            copyCurl={() => {
              const exchange = sent && sameRequest(sent, request) ? messageExchange(sent.result.wire) : undefined;
              return exchange ? curlOfWire(exchange.request) : curlOfPreview({ agent: target }, mode, previewInputsOf(inputs));
            }}
          />
        </div>
        <div className="compose-pane compose-response" data-testid="compose-response" ref={answerPane} role="region" aria-label="answer">
          {send.busy ? (
            <div className="row actions compose-busy">
              <span className="muted" role="status" data-testid="send-busy">
                {streaming ? 'Streaming…' : 'Waiting for the answer…'} Sending again replaces this call's result.
              </span>
              <button type="button" className="secondary small" onClick={send.cancel}>
                Stop waiting
              </button>
            </div>
          ) : null}
          <ErrorBox error={send.error} />
          {send.error && failedWire?.length ? (
            <div className="card" data-testid="failed-wire">
              <h3>Wire of the failed call</h3>
              <WireView exchanges={failedWire} />
            </div>
          ) : null}
          {sent ? (
            <Tabs
              label="Result"
              value={tab}
              onChange={setTab}
              tabs={[
                { id: 'answer', label: 'Answer', render: () => answer },
                { id: 'wire', label: `Wire (${sent.result.wire?.length ?? 0})`, render: () => <WireView exchanges={sent.result.wire} /> },
                { id: 'json', label: 'JSON', render: () => <JsonTree value={withoutWire(sent.result)} label="result" /> },
              ]}
            />
          ) : (
            answer
          )}
          {!sent && !send.busy && !send.error ? (
            <p className="muted compose-placeholder">The answer shows here: its text, status messages and artifacts, the wire and the JSON.</p>
          ) : null}
        </div>
      </div>
    </section>
  );
}

const withoutWire = ({ wire: _wire, ...rest }: Sent['result']) => rest;
