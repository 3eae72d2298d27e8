/**
 * The Contexts view: the local contexts (name or first message, agent, state, counts, last update, the id shortened),
 * create and fork, a redacted export, and Open: the context's conversation as a thread with its artifacts inline
 * (`contexts.thread`). A context id link elsewhere opens its thread here.
 */
import { useEffect, useState } from 'react';
import { call } from '../api';
import { useAction, useLoad, useScrollIntoView } from '../hooks';
import { useNavigationTarget } from '../store';
import { IdLink, shortId } from '../components/IdLink';
import { Empty, ErrorBox, Field, JsonTree } from '../components/common';
import { Thread } from '../components/Thread';
import { Time } from '../components/Time';

export function ContextsView() {
  const list = useLoad(() => call('contexts.list', {}), []);
  const [name, setName] = useState('');
  const create = useAction(async () => {
    const c = await call('contexts.create', { name: name || undefined });
    await list.run();
    return c;
  });
  const fork = useAction(async (id: string) => {
    const c = await call('contexts.fork', { context: id });
    await list.run();
    return c;
  });
  const exported = useAction((id: string) => call('contexts.export', { context: id }));
  const thread = useAction((id: string) => call('contexts.thread', { context: id }));
  const [openId, setOpenId] = useState<string | null>(null);
  const openThread = (id: string) => {
    setOpenId(id);
    void thread.run(id);
  };
  // A context id link followed elsewhere opens that context's thread here.
  const target = useNavigationTarget('context');
  useEffect(() => {
    if (target) openThread(target.id);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- open once per navigation target; openThread is a fresh closure each render
  }, [target]);
  const threadCard = useScrollIntoView(openId);
  const contexts = list.data?.contexts ?? [];
  const shown = thread.data && thread.data.context.context_id === openId ? thread.data : null;
  const summary = contexts.find((c) => c.context_id === openId);
  return (
    <section className="view" data-testid="view-contexts">
      <h2>Contexts</h2>
      <div className="row">
        <Field label="Name">
          <input name="context-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. launch-plan" />
        </Field>
        <button type="button" onClick={() => void create.run()}>
          Create context
        </button>
        <button type="button" onClick={() => void list.run()}>
          Refresh
        </button>
      </div>
      <ErrorBox error={create.error ?? fork.error ?? exported.error ?? list.error} />
      {/* A list that could not be read is not an empty one: the error above says why. */}
      {contexts.length === 0 ? (
        list.error ? null : (
          <Empty title="No contexts yet">Contexts appear when you send with one, or create one here to group a conversation.</Empty>
        )
      ) : (
        <table className="table contexts-table" data-testid="contexts-table">
          <thead>
            <tr>
              <th>Conversation</th>
              <th>Agent</th>
              <th>State</th>
              <th>Contents</th>
              <th>Updated</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {contexts.map((c) => (
              <tr key={c.context_id} className={openId === c.context_id ? 'task-row selected' : 'task-row'} onClick={() => openThread(c.context_id)}>
                <td className="context-cell">
                  <button
                    type="button"
                    className="row-link"
                    onClick={(e) => (e.stopPropagation(), openThread(c.context_id))}
                    aria-current={openId === c.context_id ? 'true' : undefined}
                    data-testid="context-title"
                  >
                    {c.name ? <strong>{c.name}</strong> : null}
                    {c.name && c.preview ? ' · ' : null}
                    {c.preview ? (
                      <span className={c.name ? 'muted' : undefined}>“{c.preview}”</span>
                    ) : c.name ? null : (
                      <span className="muted">no messages yet</span>
                    )}
                  </button>
                  <div className="mono muted cell-id" title={c.context_id}>
                    {shortId(c.context_id)}
                  </div>
                </td>
                <td data-testid="context-agent">{c.agent ?? <span className="muted">—</span>}</td>
                <td>{c.state}</td>
                <td>
                  {c.tasks} tasks · {c.messages} messages
                </td>
                <td>
                  <Time at={c.updated_at} show="age" />
                </td>
                <td className="row-actions" onClick={(e) => e.stopPropagation()}>
                  <button
                    type="button"
                    className="small"
                    onClick={() => openThread(c.context_id)}
                    aria-label={`Open context ${c.name ?? c.preview ?? c.context_id}`}
                  >
                    Open
                  </button>
                  <button type="button" className="small" onClick={() => void fork.run(c.context_id)}>
                    Fork
                  </button>
                  <button type="button" className="small" onClick={() => void exported.run(c.context_id)}>
                    Export
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorBox error={thread.error} />
      {openId && (shown || thread.busy) ? (
        <div className="card" data-testid="context-thread" ref={threadCard}>
          <div className="card-head">
            <h3>
              {shown?.context.name ?? summary?.preview ?? 'Conversation'} <span className="mono muted">{openId}</span>
            </h3>
            {summary?.agent ? <span className="muted">with {summary.agent}</span> : null}
            {summary?.first_message_id ? (
              <span className="muted">
                first message: <IdLink kind="message" id={summary.first_message_id} label="open in History" />
              </span>
            ) : null}
            <button type="button" className="small" onClick={() => void thread.run(openId)} disabled={thread.busy}>
              Reload
            </button>
            <button type="button" className="small secondary" onClick={() => setOpenId(null)}>
              Close
            </button>
          </div>
          {shown ? <Thread items={shown.items} /> : <p className="muted">loading…</p>}
        </div>
      ) : null}
      {exported.data ? <JsonTree value={exported.data} label="export" /> : null}
    </section>
  );
}
