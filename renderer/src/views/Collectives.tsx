import { useEffect, useState } from 'react';
import { call, subscribe } from '../api';
import { useAction, useLoad } from '../hooks';
import { Empty, ErrorBox, Field, stateClass } from '../components/common';

type Member = { alias: string; rank: number; status: string; state?: string | null; latency_ms?: number | null; task_id?: string | null };

export function CollectivesView() {
  const groups = useLoad(() => call('groups.list', {}), []);
  const agents = useLoad(() => call('agents.list', {}), []);
  const [name, setName] = useState('');
  const [members, setMembers] = useState('');
  const [group, setGroup] = useState('');
  const [text, setText] = useState('');
  const [op, setOp] = useState<'round' | 'bcast' | 'gather' | 'reduce' | 'barrier'>('round');
  const [strategy, setStrategy] = useState<'summarise' | 'vote' | 'merge' | 'rank'>('summarise');
  const [reducer, setReducer] = useState('');
  const [context, setContext] = useState('');
  const [live, setLive] = useState<Record<string, Member>>({});
  useEffect(() => subscribe('collectives.member', (m) => setLive((l) => ({ ...l, [`${m.rank}`]: m as Member }))), []);
  const create = useAction(async () => {
    const made = await call('groups.create', { group: name, members: members.split(/[\s,]+/).filter(Boolean) });
    await groups.run();
    setGroup(made.group_name);
    return made;
  });
  const target = group || groups.data?.groups[0]?.group_name || '';
  const run = useAction(async () => {
    setLive({});
    const reduce = { strategy, ...(reducer ? { reducerAgent: reducer } : {}) };
    if (op === 'round') return { op, result: await call('collectives.round', { group: target, inputs: { text }, failurePolicy: 'continue', reduce }) };
    if (op === 'bcast') return { op, result: await call('collectives.bcast', { group: target, inputs: { text, contextId: context || undefined }, failurePolicy: 'continue' }) };
    if (op === 'barrier') return { op, result: await call('collectives.barrier', { group: target, contextId: context }) };
    if (op === 'gather') return { op, result: await call('collectives.gather', { group: target, contextId: context }) };
    return { op, result: await call('collectives.reduce', { group: target, contextId: context, reduce }) };
  });
  const out = run.data?.result as any;
  const rows: Member[] = out?.bcast?.members ?? out?.members ?? Object.values(live);
  const slowest = Math.max(1, ...rows.map((r) => r.latency_ms ?? 0));
  const reduced = out?.reduce ?? (run.data?.op === 'reduce' ? out : null);
  useEffect(() => {
    if (out?.context_id ?? out?.request?.context_id) setContext(out.context_id ?? out.request.context_id);
  }, [out]);
  return (
    <section className="view" data-testid="view-collectives">
      <h2>Groups & collectives</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run();
        }}
      >
        <Field label="New group">
          <input name="group-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="reviewers" />
        </Field>
        <Field label="Members (alias or alias@rank)">
          <input name="group-members" value={members} onChange={(e) => setMembers(e.target.value)} placeholder={(agents.data?.agents ?? []).map((a: any) => a.alias).slice(0, 3).join(' ')} />
        </Field>
        <button type="submit">Create group</button>
      </form>
      <ErrorBox error={create.error ?? groups.error} />
      {(groups.data?.groups.length ?? 0) === 0 ? (
        <Empty title="No groups yet">Create one from registered agents; ranks are assigned in the order you list them.</Empty>
      ) : (
        <>
          <div className="row">
            <Field label="Group">
              <select name="group" value={target} onChange={(e) => setGroup(e.target.value)}>
                {groups.data!.groups.map((g) => (
                  <option key={g.group_name} value={g.group_name}>
                    {g.group_name} ({g.members})
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Operation">
              <select name="operation" value={op} onChange={(e) => setOp(e.target.value as typeof op)}>
                <option value="round">round (bcast → barrier → gather → reduce)</option>
                <option value="bcast">bcast</option>
                <option value="barrier">barrier</option>
                <option value="gather">gather</option>
                <option value="reduce">reduce</option>
              </select>
            </Field>
            <Field label="Strategy">
              <select name="strategy" value={strategy} onChange={(e) => setStrategy(e.target.value as typeof strategy)}>
                {['summarise', 'vote', 'merge', 'rank'].map((s) => (
                  <option key={s}>{s}</option>
                ))}
              </select>
            </Field>
            <Field label="Reducer agent">
              <select name="reducer" value={reducer} onChange={(e) => setReducer(e.target.value)}>
                <option value="">local</option>
                {(agents.data?.agents ?? []).map((a: any) => (
                  <option key={a.alias}>{a.alias}</option>
                ))}
              </select>
            </Field>
          </div>
          <div className="row">
            <Field label="Message">
              <input name="collective-text" value={text} onChange={(e) => setText(e.target.value)} placeholder="What should every member do?" />
            </Field>
            <Field label="Context">
              <input name="collective-context" value={context} onChange={(e) => setContext(e.target.value)} placeholder="set by bcast / round" />
            </Field>
            <button onClick={() => void run.run()} disabled={run.busy} data-testid="run-collective">
              Run {op}
            </button>
          </div>
        </>
      )}
      <ErrorBox error={run.error} />
      {rows.length ? (
        <table className="table" data-testid="members-table">
          <thead>
            <tr>
              <th>Rank</th>
              <th>Member</th>
              <th>Status</th>
              <th>State</th>
              <th>Latency</th>
            </tr>
          </thead>
          <tbody>
            {[...rows].sort((a, b) => a.rank - b.rank).map((m) => (
              <tr key={`${m.rank}-${m.alias}`}>
                <td>{m.rank}</td>
                <td>{m.alias}</td>
                <td>{m.status}</td>
                <td className={stateClass(m.state)}>{m.state ?? '-'}</td>
                <td>
                  {m.latency_ms != null ? (
                    <span className="bar-wrap">
                      <span className="bar" style={{ width: `${Math.max(2, (m.latency_ms / slowest) * 100)}%` }} /> {m.latency_ms} ms
                    </span>
                  ) : (
                    '-'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {out?.status ? <p data-testid="collective-status">status: {out.status}</p> : null}
      {reduced ? (
        <div className="card" data-testid="reduced">
          <h3>Reduced ({reduced.strategy} by {reduced.reducer?.method})</h3>
          <pre className="answer">{reduced.reduced_text}</pre>
          <ul className="provenance">
            {reduced.provenance.map((p: any) => (
              <li key={p.rank}>
                {p.rank} {p.agent}: {p.status}
                {p.task_id ? <span className="mono"> task {p.task_id}</span> : null}
                {p.artifacts?.length ? ` · artifacts ${p.artifacts.map((a: any) => `${a.artifact_id} v${a.version}`).join(', ')}` : ''}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
