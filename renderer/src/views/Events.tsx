/**
 * The Events view: the journal with a free-text search (run by the core: `events.query` `search`), exact context and
 * task filters, a client-side "type contains" filter, rows that expand to their redacted payload, and a live tail
 * (`events.appended`) capped at TAIL_CAP rows: older live rows are dropped and counted, and Reload reads them again.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { call, subscribe } from '../api';
import { useAction } from '../hooks';
import { Empty, ErrorBox, Field, JsonTree, jsonAt, stringOf } from '../components/common';
import { EventList } from '../components/EventList';
import { Time } from '../components/Time';
import { IdLink } from '../components/IdLink';
import { useDebounced } from '../components/timers';
import { useViewActive } from '../store';
import type { EventPayload } from '../../../shared/ipc/contract';

/** A journal row as the view shows it: what `events.query` reads, or what the live tail (`events.appended`) sends. */
interface Row {
  sequence: number;
  type: string;
  timestamp: string | null;
  source: string | null;
  eventId: string | null;
  contextId: string | null;
  taskId: string | null;
  agentAlias: string | null;
  payload: unknown;
  metadata: unknown;
  /** Who wrote it; null for an event journaled before missive recorded it. */
  actor: Actor | null;
}

interface Actor {
  host: string;
  user: string;
  id: string;
}

/** A live row's actor, as loosely as the event channel types it. */
function actorOf(value: unknown): Actor | null {
  const host = stringOf(jsonAt(value, 'host'));
  const user = stringOf(jsonAt(value, 'user'));
  const id = stringOf(jsonAt(value, 'id'));
  return host !== null && user !== null && id !== null ? { host, user, id } : null;
}

/** Who, in a few characters: `alice@build-1`. */
const whoOf = (actor: Actor | null) => (actor ? `${actor.user}@${actor.host}` : '');

/** A live row: the same journal row, though its event channel only types the sequence and the type. */
const tailRow = (e: EventPayload<'events.appended'>['events'][number]): Row => ({
  sequence: e.sequence,
  type: e.type,
  timestamp: stringOf(e.timestamp),
  source: stringOf(e.source),
  eventId: stringOf(e.eventId),
  contextId: stringOf(e.contextId),
  taskId: stringOf(e.taskId),
  agentAlias: stringOf(e.agentAlias),
  payload: e.payload,
  metadata: e.metadata,
  actor: actorOf(e.actor),
});

/** How many of the newest matching events a load reads. */
export const LOAD_LIMIT = 100_000;
/** A bound on the calls of one load (each answer is one bounded page; a load follows `next` until LOAD_LIMIT rows). */
const MAX_LOAD_CALLS = 20_000;
/** How many live rows the tail keeps after the last load; older ones are dropped (and counted). */
export const TAIL_CAP = 5_000;

interface Query {
  search: string;
  context: string;
  task: string;
  host: string;
  user: string;
}

/**
 * The core's search, mirrored for live rows: a case-insensitive substring of the type, agent or ids, or of the
 * payload as JSON text (where the search text is matched as JSON writes it, e.g. `"` as `\"`).
 */
function matchesQuery(row: Row, q: Query): boolean {
  if (q.context && row.contextId !== q.context) return false;
  if (q.task && row.taskId !== q.task) return false;
  if (q.host && row.actor?.host !== q.host) return false;
  if (q.user && row.actor?.user !== q.user) return false;
  if (!q.search) return true;
  const needle = q.search.toLowerCase();
  if ([row.type, row.agentAlias, row.contextId, row.taskId].some((v) => !!v && v.toLowerCase().includes(needle))) return true;
  return JSON.stringify(row.payload ?? {})
    .toLowerCase()
    .includes(JSON.stringify(needle).slice(1, -1));
}

interface Tail {
  rows: Row[];
  dropped: number;
}
const EMPTY_TAIL: Tail = { rows: [], dropped: 0 };
const NO_ROWS: Row[] = [];

/** Adds live rows newer than `after` that match `q`, keeping at most TAIL_CAP. */
function grow(tail: Tail, batch: Row[], after: number, q: Query): Tail {
  const last = Math.max(tail.rows.at(-1)?.sequence ?? 0, after);
  const fresh = batch.filter((r) => r.sequence > last && matchesQuery(r, q));
  if (fresh.length === 0) return tail;
  // Live rows that a load has read since are no longer the tail's.
  const kept = tail.rows.length && tail.rows[0]!.sequence <= after ? tail.rows.filter((r) => r.sequence > after) : tail.rows;
  const rows = kept.concat(fresh);
  const over = rows.length - TAIL_CAP;
  return over > 0 ? { rows: rows.slice(over), dropped: tail.dropped + over } : { rows, dropped: tail.dropped };
}

export function EventsView() {
  const visible = useViewActive();
  const [searchText, setSearchText] = useState('');
  const [type, setType] = useState('');
  const [contextText, setContextText] = useState('');
  const [taskText, setTaskText] = useState('');
  const [hostText, setHostText] = useState('');
  const [userText, setUserText] = useState('');
  const typed = useMemo<Query>(
    () => ({ search: searchText.trim(), context: contextText.trim(), task: taskText.trim(), host: hostText.trim(), user: userText.trim() }),
    [searchText, contextText, taskText, hostText, userText],
  );
  const query = useDebounced(typed, 300);
  const [tail, setTail] = useState<Tail>(EMPTY_TAIL);
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(new Set());

  // A load reads page after page (each answer is bounded, so the app's main process stays responsive), walking back
  // from the newest until LOAD_LIMIT rows or the journal's start; a newer load stops an older one between pages.
  const loads = useRef(0);
  const load = useAction(async (q: Query) => {
    const mine = ++loads.current;
    const filters = {
      ...(q.search ? { search: q.search } : {}),
      ...(q.context ? { contextId: q.context } : {}),
      ...(q.task ? { taskId: q.task } : {}),
      ...(q.host ? { actorHost: q.host } : {}),
      ...(q.user ? { actorUser: q.user } : {}),
    };
    const pages: Row[][] = [];
    let count = 0;
    let before: number | undefined;
    for (let calls = 0; calls < MAX_LOAD_CALLS && count < LOAD_LIMIT && loads.current === mine; calls++) {
      const page = await call('events.query', { ...filters, limit: LOAD_LIMIT - count, ...(before !== undefined ? { beforeSequence: before } : {}) });
      pages.push(page.events);
      count += page.events.length;
      if (!page.next || !('beforeSequence' in page.next)) break;
      before = page.next.beforeSequence;
    }
    return { events: pages.reverse().flat() };
  });
  const loaded: readonly Row[] = load.data?.events ?? NO_ROWS;
  const loadedLast = loaded.at(-1)?.sequence ?? 0;

  // The first load waits until the view is first shown; then each new query reloads.
  const [shown, setShown] = useState(false);
  useEffect(() => void (visible && setShown(true)), [visible]);
  // The tail callback reads the query and the last loaded sequence of now, not of when it subscribed.
  const live = useRef({ query, loadedLast, shown });
  live.current = { query, loadedLast, shown };
  const reload = () => {
    setTail(EMPTY_TAIL);
    void load.run(live.current.query);
  };
  useEffect(() => {
    if (shown) reload();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- reload when the query or visibility changes; reload reads the latest state through `live`
  }, [query, shown]);
  useEffect(
    () =>
      subscribe('events.appended', (batch) => {
        if (live.current.shown) setTail((t) => grow(t, batch.events.map(tailRow), live.current.loadedLast, live.current.query));
      }),
    [],
  );

  const rows = useMemo(() => {
    const kept = tail.rows.filter((r) => r.sequence > loadedLast);
    const all = kept.length ? loaded.concat(kept) : loaded;
    const needle = type.trim();
    return needle ? all.filter((r) => r.type.includes(needle)) : all;
  }, [loaded, loadedLast, tail, type]);

  const toggle = (sequence: number) =>
    setExpanded((open) => {
      const next = new Set(open);
      if (!next.delete(sequence)) next.add(sequence);
      return next;
    });

  return (
    <section className="view" data-testid="view-events">
      <h2>Events</h2>
      <div className="row events-filters">
        <label className="field search-field">
          <span title="type, agent, context and task ids, payload">Search all fields</span>
          <input name="event-search" type="search" value={searchText} onChange={(e) => setSearchText(e.target.value)} placeholder="e.g. failed or an id" />
        </label>
        <Field label="Type contains">
          <input name="event-type" value={type} onChange={(e) => setType(e.target.value)} placeholder="e.g. a2a.send" />
        </Field>
        <Field label="Context id">
          <input name="event-context" value={contextText} onChange={(e) => setContextText(e.target.value)} placeholder="exact id" />
        </Field>
        <Field label="Task id">
          <input name="event-task" value={taskText} onChange={(e) => setTaskText(e.target.value)} placeholder="exact id" />
        </Field>
        <Field label="Host">
          <input name="event-host" value={hostText} onChange={(e) => setHostText(e.target.value)} placeholder="exact hostname" />
        </Field>
        <Field label="User">
          <input name="event-user" value={userText} onChange={(e) => setUserText(e.target.value)} placeholder="exact OS user" />
        </Field>
        <button type="button" onClick={reload} disabled={load.busy}>
          Reload
        </button>
      </div>
      <div className="events-status">
        <span className="muted" data-testid="event-count">
          {rows.length} event(s)
        </span>
        {loaded.length >= LOAD_LIMIT ? <span className="muted"> · the newest {LOAD_LIMIT.toLocaleString()} loaded: search or filter to narrow</span> : null}
        {load.busy ? <span className="muted"> · loading…</span> : null}
        {tail.dropped > 0 ? (
          <span className="tail-dropped" data-testid="tail-dropped" role="status">
            {tail.dropped.toLocaleString()} older live row(s) dropped (the live tail keeps {TAIL_CAP.toLocaleString()}) —{' '}
            <button type="button" className="link-button" onClick={reload}>
              Reload
            </button>
          </span>
        ) : null}
      </div>
      <ErrorBox error={load.error} />
      {/* A journal that could not be read is not an empty one: the error above says why. */}
      {rows.length === 0 ? (
        load.error ? null : (
          <Empty title="Nothing in the journal matches">Every send, stream, task update, push and collective step is journaled here.</Empty>
        )
      ) : (
        <>
          <div className="event-head" aria-hidden="true">
            <span />
            <span>Time</span>
            <span>#</span>
            <span>Type</span>
            <span>Agent</span>
            <span>Who</span>
            <span>Task / context</span>
          </div>
          <EventList
            testId="event-list"
            rows={rows}
            expanded={expanded}
            onToggle={toggle}
            renderRow={(r) => (
              <>
                <span className="event-time">
                  <Time at={r.timestamp} show="local" />
                </span>
                <span className="mono muted">{r.sequence}</span>
                <span className="etype">{r.type}</span>
                <span className="muted">{r.agentAlias ?? ''}</span>
                <span className="muted event-who" title={r.actor ? `${r.actor.user}@${r.actor.host} (${r.actor.id})` : 'not recorded'}>
                  {whoOf(r.actor)}
                </span>
              </>
            )}
            renderAside={(r) => (
              <span className="event-ids">
                {r.taskId ? <IdLink kind="task" id={r.taskId} /> : r.contextId ? <IdLink kind="context" id={r.contextId} /> : null}
              </span>
            )}
            renderDetail={(r) => <EventDetail row={r} />}
          />
        </>
      )}
    </section>
  );
}

/** An expanded row: when, where from, the ids (links to their views), and the payload as the journal holds it (redacted). */
function EventDetail({ row }: { row: Row }) {
  // A send or stream event names its request message: History opens it.
  const messageId = /^a2a\.(send|stream)\./.test(row.type) ? stringOf(jsonAt(row.payload, 'message_id')) : null;
  return (
    <div className="event-detail-body">
      <dl className="kv compact">
        <dt>Time</dt>
        <dd>
          <Time at={row.timestamp} /> <span className="mono muted">{row.timestamp}</span>
        </dd>
        <dt>Source</dt>
        <dd>{row.source ?? '-'}</dd>
        <dt>Host</dt>
        <dd className="mono">{row.actor?.host ?? '-'}</dd>
        <dt>User</dt>
        <dd className="mono">{row.actor?.user ?? '-'}</dd>
        <dt>Actor</dt>
        <dd className="mono">{row.actor?.id ?? '-'}</dd>
        <dt>Context</dt>
        <dd className="mono">{row.contextId ? <IdLink kind="context" id={row.contextId} label={row.contextId} /> : '-'}</dd>
        <dt>Task</dt>
        <dd className="mono">{row.taskId ? <IdLink kind="task" id={row.taskId} label={row.taskId} /> : '-'}</dd>
        {messageId ? (
          <>
            <dt>Message</dt>
            <dd className="mono">
              <IdLink kind="message" id={messageId} label={messageId} />
            </dd>
          </>
        ) : null}
        <dt>Event id</dt>
        <dd className="mono">{row.eventId ?? '-'}</dd>
      </dl>
      <JsonTree value={row.payload ?? {}} label="payload" />
      {typeof row.metadata === 'object' && row.metadata !== null && Object.keys(row.metadata).length ? (
        <JsonTree value={row.metadata} label="metadata" />
      ) : null}
    </div>
  );
}
