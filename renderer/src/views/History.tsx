/**
 * History: every send and stream the journal holds (`history.list`, newest first, filtered by agent and operation,
 * paged with "Load more"). Opening an entry shows its request, answer and — for calls made in this session — its wire
 * (`history.get`); from there it can be opened in Compose, re-run (the new run appears at the top) or copied as a
 * missive or curl command. Two entries picked with their checkboxes can be diffed: their answers' texts line by line
 * and their responses as JSON. New sends and streams (also the CLI's) appear as the journal's live tail reports them.
 * The open entry sits beside the list (a drawer on a narrow window), its heading focused; a text filter narrows the
 * loaded entries (request, answer, agent, ids).
 */
import { useEffect, useRef, useState } from 'react';
import { call, subscribe } from '../api';
import { useAction, useLoad } from '../hooks';
import { useNavigationTarget, useStore } from '../store';
import { IdLink } from '../components/IdLink';
import { DetailHeading, ListFilter, MasterDetail, matchesFilter } from '../components/MasterDetail';
import { Empty, ErrorBox, Field, JsonTree, stateClass } from '../components/common';
import { Time } from '../components/Time';
import { WireView } from '../components/WireView';
import { CopyAs } from '../components/CopyAs';
import { DiffView, jsonChanges, textChanges } from '../components/DiffView';
import { commandOfMessage, curlOfPreview, curlOfWire } from '../components/copy-text';
import { FollowedTask } from '../components/FollowedTask';
import type { HistoryEntry, WireExchange } from '../../../shared/ipc/contract';
import { isTerminalTaskState } from '../../../shared/task-states';

const PAGE = 50;
const SHORT = 160;

const shorten = (text: string | null | undefined, max = SHORT) => {
  if (!text) return '';
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** The exchange that carried the message itself, for "Copy as curl". */
const messageExchange = (wire: WireExchange[] | null | undefined) => wire?.find((x) => /SendMessage|SendStreamingMessage/.test(x.operation)) ?? wire?.[0];

/**
 * One label per entry, never two that disagree: a call that returned a task shows the task's state (`task failed`:
 * the call itself went through, the task failed), a call that failed says so (`call failed`), a direct answer reads
 * `answered`, a call still running `running`, and a job's send whose answer was never recorded `unconfirmed`.
 */
export function outcomeLabel(entry: Pick<HistoryEntry, 'outcome' | 'state'>): { text: string; state: string } {
  if (entry.outcome === 'failed') return { text: entry.state ? `call failed · task ${entry.state}` : 'call failed', state: 'failed' };
  if (entry.outcome === 'running') return { text: entry.state ? `running · task ${entry.state}` : 'running', state: 'working' };
  // A job gave up on it without knowing whether the agent got it; the agent's task, once asked about (task list --remote).
  if (entry.outcome === 'unconfirmed') return { text: entry.state ? `unconfirmed · task ${entry.state}` : 'unconfirmed', state: 'unknown' };
  return entry.state ? { text: `task ${entry.state}`, state: entry.state } : { text: 'answered', state: 'completed' };
}

function Outcome({ entry }: { entry: HistoryEntry }) {
  const label = outcomeLabel(entry);
  return (
    <span className="history-outcome" data-testid="history-outcome">
      <span className={stateClass(label.state)}>{label.text}</span>
      {entry.error ? <span className="error-code"> {entry.error.code}</span> : null}
    </span>
  );
}

export function HistoryView() {
  const { journalTick } = useStore();
  const agents = useLoad(() => call('agents.list', {}), []);
  const [agent, setAgent] = useState('');
  const [operation, setOperation] = useState<'' | 'send' | 'stream'>('');
  const filter = { ...(agent ? { agent } : {}), ...(operation ? { operation } : {}) };
  // Kept current by the journal tick and the live tail (below) rather than by reloading when shown, so pages stay.
  const first = useLoad(() => call('history.list', { ...filter, limit: PAGE }), [agent, operation], { reloadWhenShown: false });
  /** The pages loaded with "Load more", and the first page they continue: a new first page leaves them behind. */
  const [loaded, setLoaded] = useState<{ base: unknown; entries: HistoryEntry[]; next: number | null } | null>(null);
  const older = loaded && loaded.base === first.data ? loaded : null;
  const more = useAction(async (beforeSequence: number) => {
    const base = first.data;
    const page = await call('history.list', { ...filter, limit: PAGE, beforeSequence });
    setLoaded((o) => ({ base, entries: [...(o?.base === base ? o.entries : []), ...page.entries], next: page.next_before_sequence }));
    return page;
  });
  // New sends and streams — this window's (the journal tick), or from elsewhere (the CLI) as the journal's live tail
  // reports them — reload the first page, unless older pages are loaded: then a button offers the reload.
  // Reports are counted and the first page keeps the count it was loaded for, so a report delivered while a reload is
  // starting (after it took the count, before React rendered that) still differs and reloads again; a true/false flag
  // reset there and set again before the render looked unchanged, and History stopped following the journal.
  const [reported, setReported] = useState(0);
  const [loadedFor, setLoadedFor] = useState(0);
  const fresh = reported !== loadedFor;
  const seenTick = useRef(journalTick);
  useEffect(() => {
    if (journalTick !== seenTick.current) setReported((n) => n + 1);
    seenTick.current = journalTick;
  }, [journalTick]);
  useEffect(
    () =>
      subscribe('events.appended', ({ events }) => {
        if (events.some((e) => /^a2a\.(send|stream)\.(started|completed|failed)$/.test(e.type))) setReported((n) => n + 1);
      }),
    [],
  );
  const reload = () => {
    setLoadedFor(reported);
    void first.run();
  };
  useEffect(() => {
    if (fresh && !more.busy && older === null) reload();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- reload is a fresh closure each render; these deps are what decides a reload
  }, [reported, loadedFor, older, more.busy]);
  const seen = new Set<string>();
  const entries = [...(first.data?.entries ?? []), ...(older?.entries ?? [])].filter((e) => !seen.has(e.message_id) && seen.add(e.message_id));
  const next = older ? older.next : (first.data?.next_before_sequence ?? null);

  const [openId, setOpenId] = useState<string | null>(null);
  /** Goes up with every open: the entry's heading then comes into view and takes the focus. */
  const [reveal, setReveal] = useState(0);
  const openEntry = (id: string | null) => {
    setOpenId(id);
    if (id) setReveal((n) => n + 1);
  };
  const [textFilter, setTextFilter] = useState('');
  const listed = entries.filter((e) =>
    matchesFilter(textFilter, [e.request_text, e.answer_text, e.agent_alias, e.operation, e.message_id, e.task_id, e.context_id, e.error?.code]),
  );
  // A message id link followed elsewhere opens that entry here (history.get finds it even when it is not listed).
  const target = useNavigationTarget('message');
  useEffect(() => {
    if (target) openEntry(target.id);
  }, [target]);
  const [picked, setPicked] = useState<string[]>([]);
  const [diffing, setDiffing] = useState<[string, string] | null>(null);
  const pick = (id: string, on: boolean) => setPicked((p) => (on ? [...p.filter((x) => x !== id), id].slice(-2) : p.filter((x) => x !== id)));

  return (
    <section className="view" data-testid="view-history">
      <h2>History</h2>
      <p className="muted">Every send and stream in the journal, newest first: the GUI's and the CLI's.</p>
      <div className="row">
        <Field label="Agent">
          <select name="history-agent" value={agent} onChange={(e) => setAgent(e.target.value)}>
            <option value="">all agents</option>
            {(agents.data?.agents ?? []).map((a) => (
              <option key={a.alias} value={a.alias}>
                {a.alias}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Operation">
          <select name="history-operation" value={operation} onChange={(e) => setOperation(e.target.value as typeof operation)}>
            <option value="">send and stream</option>
            <option value="send">send</option>
            <option value="stream">stream</option>
          </select>
        </Field>
        <div className="history-diff-actions">
          <button type="button" disabled={picked.length !== 2} onClick={() => setDiffing([picked[0]!, picked[1]!])} data-testid="history-diff-button">
            Diff
          </button>
          <span className="muted" aria-live="polite">
            {picked.length === 2 ? '2 entries picked' : `pick ${2 - picked.length} more to diff`}
          </span>
        </div>
      </div>
      {fresh && older !== null ? (
        <p className="carried" role="status">
          New sends or streams arrived.{' '}
          <button type="button" className="link" onClick={reload}>
            Show the newest
          </button>
        </p>
      ) : null}
      <ErrorBox error={first.error ?? more.error} />
      {diffing ? <HistoryDiff ids={diffing} onClose={() => setDiffing(null)} /> : null}
      {first.data && entries.length === 0 ? (
        <Empty title={agent || operation ? 'Nothing matches these filters' : 'No sends or streams yet'}>
          Messages sent from Compose or with `missive send` / `missive stream` appear here.
        </Empty>
      ) : null}
      <MasterDetail
        detail={openId ? <HistoryDetail messageId={openId} onOpen={openEntry} reveal={reveal} /> : null}
        label="history entry"
        onClose={() => setOpenId(null)}
      >
        {entries.length ? (
          <ListFilter
            name="history-filter"
            label="Filter the loaded entries"
            value={textFilter}
            onChange={setTextFilter}
            placeholder="request or answer text, agent, id"
            shown={listed.length}
            total={entries.length}
          />
        ) : null}
        {entries.length ? (
          <ol className="history-list" data-testid="history-list" aria-label="history entries">
            {listed.map((e) => (
              <li key={e.message_id} className={openId === e.message_id ? 'history-row open' : 'history-row'} data-testid="history-row">
                <input
                  type="checkbox"
                  checked={picked.includes(e.message_id)}
                  onChange={(ev) => pick(e.message_id, ev.target.checked)}
                  aria-label={`Pick for diff: ${e.operation} to ${e.agent_alias ?? 'unknown agent'}, ${shorten(e.request_text, 40)}`}
                />
                <button
                  type="button"
                  className="history-open"
                  aria-current={openId === e.message_id ? 'true' : undefined}
                  onClick={() => openEntry(e.message_id)}
                >
                  <span className="history-meta">
                    <Time at={e.started_at} /> <strong>{e.agent_alias ?? '—'}</strong> <span className="chip">{e.operation}</span> <Outcome entry={e} />
                  </span>
                  <span className="history-text">
                    <span className="history-request">{shorten(e.request_text) || <span className="muted">(no text parts)</span>}</span>
                    <span className="history-answer">{e.answer_text ? `→ ${shorten(e.answer_text)}` : e.error ? `→ ${shorten(e.error.message)}` : ''}</span>
                  </span>
                </button>
              </li>
            ))}
          </ol>
        ) : null}
        {next !== null ? (
          <button type="button" className="secondary" onClick={() => void more.run(next)} disabled={more.busy} data-testid="history-more">
            {more.busy ? 'Loading…' : 'Load more'}
          </button>
        ) : null}
      </MasterDetail>
    </section>
  );
}

function HistoryDetail({ messageId, onOpen, reveal }: { messageId: string; onOpen: (id: string) => void; reveal: number }) {
  const { journalTick, openInCompose, noteJournalChanged } = useStore();
  const detail = useLoad(() => call('history.get', { messageId }), [messageId, journalTick]);
  const rerun = useAction(async (entry: HistoryEntry) => {
    const args = { agent: entry.agent_alias!, inputs: entry.inputs, wire: true };
    try {
      const result = entry.operation === 'send' ? await call('messages.send', args) : await call('messages.stream', args);
      return { message_id: result.request.message_id };
    } finally {
      noteJournalChanged();
    }
  });
  useEffect(() => {
    if (rerun.data?.message_id) onOpen(rerun.data.message_id);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- open once per finished rerun; the parent's onOpen is a fresh closure each render
  }, [rerun.data]);
  const d = detail.data;
  const entry = d?.entry;
  return (
    <div className="card history-detail" data-testid="history-detail">
      <ErrorBox error={detail.error} />
      {!entry ? (
        detail.busy ? (
          <p className="muted">Loading…</p>
        ) : null
      ) : (
        <>
          <DetailHeading reveal={reveal}>
            {entry.operation} to {entry.agent_alias ?? 'an unknown agent'} <Outcome entry={entry} />
          </DetailHeading>
          <p className="muted">
            <Time at={entry.started_at} />
            {entry.finished_at ? (
              <>
                {' '}
                · finished <Time at={entry.finished_at} show="local" />
              </>
            ) : null}
            {entry.context_id ? (
              <>
                {' '}
                · context <IdLink kind="context" id={entry.context_id} />
              </>
            ) : null}
            {entry.task_id ? (
              <>
                {' '}
                · task <IdLink kind="task" id={entry.task_id} />
              </>
            ) : null}
          </p>
          {entry.task_id && !isTerminalTaskState(entry.state) ? <FollowedTask key={entry.task_id} taskId={entry.task_id} initialState={entry.state} /> : null}
          <div className="row actions">
            <button
              type="button"
              onClick={() => openInCompose({ agent: entry.agent_alias, mode: entry.operation, inputs: entry.inputs })}
              data-testid="history-open-compose"
            >
              Open in Compose
            </button>
            <button
              type="button"
              disabled={!entry.agent_alias || rerun.busy}
              onClick={() => void rerun.run(entry)}
              data-testid="history-rerun"
              title={entry.agent_alias ? 'Send the same inputs again' : 'The agent of this entry is unknown'}
            >
              {rerun.busy ? 'Re-running…' : 'Re-run'}
            </button>
            {entry.agent_alias ? (
              <CopyAs
                testId="history-copy"
                label="this request"
                command={() => commandOfMessage(entry.operation, entry.agent_alias!, entry.inputs)}
                curl={() => {
                  const exchange = messageExchange(d.wire);
                  return exchange ? curlOfWire(exchange.request) : curlOfPreview({ agent: entry.agent_alias! }, entry.operation, entry.inputs);
                }}
              />
            ) : null}
          </div>
          <p className="muted" role="status" data-testid="history-rerun-status">
            {rerun.data?.message_id === messageId ? 'Re-ran: this is the new entry, at the top of the list.' : ''}
          </p>
          <ErrorBox error={rerun.error} />
          {entry.error ? (
            <p className="error" data-testid="history-error">
              <strong className="error-code">{entry.error.code}</strong> {entry.error.message}
            </p>
          ) : null}
          <div className="history-columns">
            <div>
              <h4>Request</h4>
              <pre className="answer" data-testid="history-request">
                {entry.request_text || '(no text parts)'}
              </pre>
              {d.request ? <JsonTree value={d.request} label="request" depth={1} /> : null}
            </div>
            <div>
              <h4>Answer</h4>
              <pre className="answer" data-testid="history-answer">
                {entry.answer_text ?? (entry.outcome === 'running' ? '(still running)' : '(no text)')}
              </pre>
              {d.response !== undefined && d.response !== null ? <JsonTree value={d.response} label="response" depth={1} /> : null}
            </div>
          </div>
          <h4>Wire</h4>
          {d.wire ? (
            <WireView exchanges={d.wire} />
          ) : (
            <p className="muted" data-testid="history-no-wire">
              The wire is only kept for calls made in this session; the journal stores the request and the answer, not the HTTP exchanges. Re-run it to capture
              one.
            </p>
          )}
        </>
      )}
    </div>
  );
}

function HistoryDiff({ ids, onClose }: { ids: [string, string]; onClose: () => void }) {
  const pair = useLoad(async () => {
    const [a, b] = await Promise.all(ids.map((messageId) => call('history.get', { messageId })));
    // Older first, so additions are what the newer run brought.
    return a!.entry.started_at <= b!.entry.started_at ? ([a!, b!] as const) : ([b!, a!] as const);
  }, [ids[0], ids[1]]);
  const [before, after] = pair.data ?? [];
  return (
    <div className="card history-diff" data-testid="history-diff">
      <div className="row">
        <h3 className="grow">Diff</h3>
        <button type="button" className="secondary" onClick={onClose}>
          Close diff
        </button>
      </div>
      <ErrorBox error={pair.error} />
      {before && after ? (
        <>
          <p className="muted">
            <span className="diff-removed">- older</span>: {before.entry.agent_alias} <Time at={before.entry.started_at} /> ·{' '}
            <span className="diff-added">+ newer</span>: {after.entry.agent_alias} <Time at={after.entry.started_at} />
          </p>
          <DiffView testId="diff-answer" label="Answer text" changes={textChanges(before.entry.answer_text ?? '', after.entry.answer_text ?? '')} />
          <DiffView testId="diff-response" label="Response JSON" changes={jsonChanges(before.response, after.response)} />
        </>
      ) : pair.busy ? (
        <p className="muted">Loading both entries…</p>
      ) : null}
    </div>
  );
}
