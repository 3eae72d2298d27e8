/**
 * The Contexts view: the local contexts (name or first message, agent, state, counts, last update, the id shortened),
 * create and fork, a redacted export, and Open: the context's conversation as a thread with its artifacts inline
 * (`contexts.thread`), beside the list (a drawer on a narrow window), its heading focused. A context id link
 * elsewhere opens its thread here. A filter narrows the list; a collective's context is named as one ("bcast over
 * group team"), not after its first member.
 */
import { useEffect, useState } from 'react';
import { call } from '../api';
import { useAction, useLoad } from '../hooks';
import { useNavigationTarget } from '../store';
import { IdLink, shortId } from '../components/IdLink';
import { Empty, ErrorBox, Field, JsonTree, jsonAt, stringOf } from '../components/common';
import { Thread } from '../components/Thread';
import { ContextTasks } from '../components/ContextTasks';
import { Time } from '../components/Time';
import { DetailHeading, ListFilter, MasterDetail, matchesFilter } from '../components/MasterDetail';
import type { ChannelOutput } from '../../../shared/ipc/contract';

type ContextSummary = ChannelOutput<'contexts.list'>['contexts'][number];

/**
 * Who a context talks to: a collective's context (its metadata names the collective and the group) is named as
 * that collective over its group, not after the member whose message happens to be first; else its agent.
 */
export function contextPeer(c: Pick<ContextSummary, 'agent' | 'metadata'>): { text: string; collective: boolean } | null {
  const kind = stringOf(jsonAt(c.metadata, 'created_by'));
  const group = stringOf(jsonAt(c.metadata, 'group'));
  if (kind && group) return { text: `${kind} over group ${group}`, collective: true };
  return c.agent ? { text: c.agent, collective: false } : null;
}

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
  /** Goes up with every open: the thread's heading then comes into view and takes the focus. */
  const [reveal, setReveal] = useState(0);
  const [filter, setFilter] = useState('');
  const openThread = (id: string) => {
    setOpenId(id);
    setReveal((n) => n + 1);
    void thread.run(id);
  };
  // A context id link followed elsewhere opens that context's thread here.
  const target = useNavigationTarget('context');
  useEffect(() => {
    if (target) openThread(target.id);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- open once per navigation target; openThread is a fresh closure each render
  }, [target]);
  const contexts = list.data?.contexts ?? [];
  const listed = contexts.filter((c) => matchesFilter(filter, [c.name, c.preview, contextPeer(c)?.text, c.agent, c.context_id, c.state]));
  const shown = thread.data && thread.data.context.context_id === openId ? thread.data : null;
  const summary = contexts.find((c) => c.context_id === openId);
  const peer = summary ? contextPeer(summary) : null;
  const detail =
    openId && (shown || thread.busy || thread.error) ? (
      <>
        <ErrorBox error={thread.error} />
        {shown || thread.busy ? (
          <div className="card" data-testid="context-thread">
            <div className="card-head">
              <DetailHeading reveal={reveal}>
                {shown?.context.name ?? summary?.preview ?? 'Conversation'} <span className="mono muted">{openId}</span>
              </DetailHeading>
              {peer ? <span className="muted">{peer.collective ? peer.text : `with ${peer.text}`}</span> : null}
              {summary?.first_message_id ? (
                <span className="muted">
                  first message: <IdLink kind="message" id={summary.first_message_id} label="open in History" />
                </span>
              ) : null}
              <button type="button" className="small" onClick={() => void thread.run(openId)} disabled={thread.busy}>
                Reload
              </button>
            </div>
            {shown ? <ContextTasks key={openId} contextId={openId} onChanged={() => void thread.run(openId)} /> : null}
            {shown ? <Thread items={shown.items} /> : <p className="muted">loading…</p>}
          </div>
        ) : null}
      </>
    ) : null;
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
        <MasterDetail detail={detail} label="context thread" onClose={() => setOpenId(null)}>
          <ListFilter
            name="context-filter"
            label="Filter contexts"
            value={filter}
            onChange={setFilter}
            placeholder="name, first message, agent or id"
            shown={listed.length}
            total={contexts.length}
          />
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
              {listed.map((c) => (
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
                  <td data-testid="context-agent">{contextPeer(c)?.text ?? <span className="muted">—</span>}</td>
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
        </MasterDetail>
      )}
      {contexts.length === 0 ? detail : null}
      {exported.data ? <JsonTree value={exported.data} label="export" /> : null}
    </section>
  );
}
