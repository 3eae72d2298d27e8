import { useEffect, useMemo, useState } from 'react';
import { call, subscribe } from '../api';
import { useLoad } from '../hooks';
import { Empty, ErrorBox, Field } from '../components/common';
import { VirtualList } from '../components/VirtualList';

type Row = { sequence: number; type: string; timestamp?: string; contextId?: string | null; taskId?: string | null; agentAlias?: string | null };

export function EventsView() {
  const [type, setType] = useState('');
  const [context, setContext] = useState('');
  const [task, setTask] = useState('');
  const [tail, setTail] = useState<Row[]>([]);
  const load = useLoad(() => call('events.query', { limit: 200_000 }), []);
  useEffect(() => subscribe('events.appended', (batch) => setTail((t) => [...t, ...(batch.events as Row[])])), []);
  const rows = useMemo(() => {
    // The live tail may repeat rows the last load already has: one row per sequence.
    const bySequence = new Map<number, Row>();
    for (const r of [...((load.data?.events ?? []) as Row[]), ...tail]) bySequence.set(r.sequence, r);
    const all = [...bySequence.values()].sort((a, b) => a.sequence - b.sequence);
    return all.filter((r) => (!type || r.type.includes(type)) && (!context || r.contextId === context) && (!task || r.taskId === task));
  }, [load.data, tail, type, context, task]);
  return (
    <section className="view" data-testid="view-events">
      <h2>Events</h2>
      <div className="row">
        <Field label="Type contains">
          <input name="event-type" value={type} onChange={(e) => setType(e.target.value)} placeholder="a2a.send" />
        </Field>
        <Field label="Context">
          <input name="event-context" value={context} onChange={(e) => setContext(e.target.value)} />
        </Field>
        <Field label="Task">
          <input name="event-task" value={task} onChange={(e) => setTask(e.target.value)} />
        </Field>
        <button onClick={() => (setTail([]), void load.run())}>Reload</button>
      </div>
      <p className="muted" data-testid="event-count">
        {rows.length} event(s)
      </p>
      <ErrorBox error={load.error} />
      {rows.length === 0 ? (
        <Empty title="Nothing in the journal matches">Every send, stream, task update, push and collective step is journaled here.</Empty>
      ) : (
        <VirtualList
          testId="event-list"
          items={rows}
          rowHeight={26}
          height={520}
          render={(r) => (
            <div className="event-row">
              <span className="mono seq">{r.sequence}</span>
              <span className="etype">{r.type}</span>
              <span className="muted">{r.agentAlias ?? ''}</span>
              <span className="mono muted">{r.taskId ?? ''}</span>
            </div>
          )}
        />
      )}
    </section>
  );
}
