/**
 * The Groups & collectives view: create groups, pick one and see its members with their health before running,
 * pick an operation (every label in full), run it, and follow each member live (`collectives.member`), then the
 * reduced answer with its provenance.
 */
import { useEffect, useState } from 'react';
import { call, subscribe } from '../api';
import { toReport, useAction, useLoad } from '../hooks';
import { Empty, ErrorBox, Field, stateClass, stringOf } from '../components/common';
import { HealthCell, useAgentHealth, type FailedCheck } from '../components/Health';
import { CollectiveCopyAs } from '../components/CollectiveCopyAs';
import { useOnShownAgain } from '../components/timers';
import { useViewActive } from '../store';
import type { ChannelOutput, EventPayload } from '../../../shared/ipc/contract';

/** A member's row in the outcome table: live from `collectives.member`, then from the operation's result. */
interface Member {
  alias: string;
  rank: number;
  status: string;
  state: string | null;
  latency_ms: number | null;
}
type Operation = 'round' | 'bcast' | 'gather' | 'reduce' | 'barrier';
/** What a run answered, by operation. */
type Outcome =
  | { op: 'round'; result: ChannelOutput<'collectives.round'> }
  | { op: 'bcast'; result: ChannelOutput<'collectives.bcast'> }
  | { op: 'barrier'; result: ChannelOutput<'collectives.barrier'> }
  | { op: 'gather'; result: ChannelOutput<'collectives.gather'> }
  | { op: 'reduce'; result: ChannelOutput<'collectives.reduce'> };

/** A live member event (its channel types alias, rank and status; the rest is the bcast's member result). */
const liveMember = (m: EventPayload<'collectives.member'>): Member => ({
  alias: m.alias,
  rank: m.rank,
  status: m.status,
  state: stringOf(m.state),
  latency_ms: typeof m.latency_ms === 'number' ? m.latency_ms : null,
});

/** The members an outcome reports (reduce reports none: its provenance is shown instead). */
function membersOf(out: Outcome): Member[] | null {
  // Barrier and gather members have no latency.
  const rowsOf = (members: Array<Omit<Member, 'latency_ms'> & { latency_ms?: number | null }>) => members.map((m) => ({ alias: m.alias, rank: m.rank, status: m.status, state: m.state, latency_ms: m.latency_ms ?? null }));
  if (out.op === 'round') return rowsOf(out.result.bcast.members);
  if (out.op === 'reduce') return null;
  return rowsOf(out.result.members);
}

/** The context an outcome ran in (a bcast may have created it). */
const contextOf = (out: Outcome): string => (out.op === 'bcast' ? out.result.request.context_id : out.result.context_id);

/** The operations with what each does, shown in full next to its radio button. */
const OPERATIONS: ReadonlyArray<readonly [Operation, string]> = [
  ['round', 'bcast → barrier → gather → reduce, in one go'],
  ['bcast', 'send the message to every member'],
  ['barrier', 'wait until every member’s task has ended'],
  ['gather', 'collect what each member produced'],
  ['reduce', 'combine the gathered outputs into one answer'],
];

export function CollectivesView() {
  const groups = useLoad(() => call('groups.list', {}), []);
  const agents = useLoad(() => call('agents.list', {}), []);
  const [name, setName] = useState('');
  const [members, setMembers] = useState('');
  const [group, setGroup] = useState('');
  const [text, setText] = useState('');
  const [op, setOp] = useState<Operation>('round');
  const [strategy, setStrategy] = useState<'summarise' | 'vote' | 'merge' | 'rank'>('summarise');
  const [reducer, setReducer] = useState('');
  const [context, setContext] = useState('');
  const [live, setLive] = useState<Record<string, Member>>({});
  useEffect(() => subscribe('collectives.member', (m) => setLive((l) => ({ ...l, [`${m.rank}`]: liveMember(m) }))), []);
  const create = useAction(async () => {
    const made = await call('groups.create', { group: name, members: members.split(/[\s,]+/).filter(Boolean) });
    await groups.run();
    setGroup(made.group_name);
    return made;
  });
  const target = group || groups.data?.groups[0]?.group_name || '';
  // The picked group's members and their health, shown before anything runs.
  const roster = useAction((g: string) => call('groups.show', { group: g }));
  useEffect(() => void (target ? roster.run(target) : undefined), [target, roster.run]);
  const health = useAgentHealth();
  // Shown again, the group's members are read again (the lists and health reload by themselves: useLoad).
  useOnShownAgain(useViewActive(), () => void (target ? roster.run(target) : undefined));
  // "Check members": each member's card fetched now; a failure shows until the next check.
  const [checks, setChecks] = useState<Record<string, FailedCheck | null>>({});
  const check = useAction(async (aliases: string[]) => {
    const results = await Promise.all(
      aliases.map(async (a) => {
        try {
          await call('agents.inspect', { alias: a, refresh: true });
          return [a, null] as const;
        } catch (e) {
          return [a, { error: toReport(e), at: new Date().toISOString() }] as const;
        }
      }),
    );
    setChecks(Object.fromEntries(results));
    await health.reload();
    return results;
  });
  const roll = roster.data && roster.data.group_name === target ? [...roster.data.members].sort((a, b) => a.rank - b.rank) : [];
  const run = useAction(async (): Promise<Outcome> => {
    setLive({});
    const reduce = { strategy, ...(reducer ? { reducerAgent: reducer } : {}) };
    if (op === 'round') return { op, result: await call('collectives.round', { group: target, inputs: { text }, failurePolicy: 'continue', reduce }) };
    if (op === 'bcast') return { op, result: await call('collectives.bcast', { group: target, inputs: { text, contextId: context || undefined }, failurePolicy: 'continue' }) };
    if (op === 'barrier') return { op, result: await call('collectives.barrier', { group: target, contextId: context }) };
    if (op === 'gather') return { op, result: await call('collectives.gather', { group: target, contextId: context }) };
    return { op, result: await call('collectives.reduce', { group: target, contextId: context, reduce }) };
  });
  // A run contacted the members: their health has news.
  useEffect(() => void (run.data ? health.reload() : undefined), [run.data, health.reload]);
  const out = run.data;
  const rows: Member[] = (out && membersOf(out)) ?? Object.values(live);
  const slowest = Math.max(1, ...rows.map((r) => r.latency_ms ?? 0));
  const reduced = out?.op === 'round' ? out.result.reduce : out?.op === 'reduce' ? out.result : null;
  const status = out && (out.op === 'round' || out.op === 'bcast' || out.op === 'barrier') ? out.result.status : null;
  useEffect(() => {
    if (out) setContext(contextOf(out));
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
          <input name="group-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. reviewers" />
        </Field>
        <Field label="Members (alias or alias@rank)">
          <input name="group-members" value={members} onChange={(e) => setMembers(e.target.value)} placeholder={`e.g. ${(agents.data?.agents ?? []).map((a) => a.alias).slice(0, 3).join(' ') || 'planner critic@2'}`} />
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
          </div>
          <div className="card group-members" data-testid="group-members">
            <div className="card-head">
              <h3>
                Members of {target} <span className="muted">({roll.length})</span>
              </h3>
              <button type="button" className="small" onClick={() => void check.run(roll.map((m) => m.agent_alias))} disabled={check.busy || roll.length === 0}>
                {check.busy ? 'Checking…' : 'Check members'}
              </button>
            </div>
            <table className="table">
              <thead>
                <tr>
                  <th>Rank</th>
                  <th>Member</th>
                  <th>Health</th>
                </tr>
              </thead>
              <tbody>
                {roll.map((m) => (
                  <tr key={`${m.rank}-${m.agent_alias}`} data-testid="group-member">
                    <td>{m.rank}</td>
                    <td>{m.agent_alias}</td>
                    <td>
                      <HealthCell health={health.byAlias.get(m.agent_alias)} failedCheck={checks[m.agent_alias]} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="muted small-text">Health is what the journal saw last (card fetches, sends, streams); “Check members” fetches each member’s card now.</p>
            <ErrorBox error={roster.error ?? health.error} />
          </div>
          <fieldset className="op-picker" data-testid="operation-picker">
            <legend>Operation</legend>
            {OPERATIONS.map(([id, what]) => (
              <label key={id} className={op === id ? 'op-option selected' : 'op-option'}>
                <input type="radio" name="operation" value={id} checked={op === id} onChange={() => setOp(id)} />
                <strong>{id}</strong> <span className="muted">{what}</span>
              </label>
            ))}
          </fieldset>
          {op === 'round' || op === 'reduce' ? (
            <div className="row">
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
                  {(agents.data?.agents ?? []).map((a) => (
                    <option key={a.alias}>{a.alias}</option>
                  ))}
                </select>
              </Field>
            </div>
          ) : null}
          <div className="row">
            {op === 'round' || op === 'bcast' ? (
              <Field label="Message">
                <input name="collective-text" value={text} onChange={(e) => setText(e.target.value)} placeholder="e.g. review the launch plan" />
              </Field>
            ) : null}
            <Field label="Context">
              <input name="collective-context" value={context} onChange={(e) => setContext(e.target.value)} placeholder={op === 'round' || op === 'bcast' ? 'new context (set by the run)' : 'the context of a bcast'} />
            </Field>
            <button onClick={() => void run.run()} disabled={run.busy} data-testid="run-collective">
              Run {op}
            </button>
            <CollectiveCopyAs op={op} group={target} text={text} context={context} strategy={strategy} reducer={reducer} />
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
      {status ? <p data-testid="collective-status">status: {status}</p> : null}
      {reduced ? (
        <div className="card" data-testid="reduced">
          <h3>Reduced ({reduced.strategy} by {reduced.reducer.method})</h3>
          <pre className="answer">{reduced.reduced_text}</pre>
          <ul className="provenance">
            {reduced.provenance.map((p) => (
              <li key={p.rank}>
                {p.rank} {p.agent}: {p.status}
                {p.task_id ? <span className="mono"> task {p.task_id}</span> : null}
                {p.artifacts.length ? ` · artifacts ${p.artifacts.map((a) => `${a.artifact_id} v${a.version}`).join(', ')}` : ''}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
