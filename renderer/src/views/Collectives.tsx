/**
 * The Groups & collectives view: create groups, pick one and see its members with their health before running, edit
 * or delete it, pick an operation (every label in full) and its options (failure policy, execution, quorum, timeout),
 * run it, and follow each member live (`collectives.member`: done / running / failed), then read each member's
 * answer (expandable) and the reduced answer with its provenance.
 */
import { useEffect, useState } from 'react';
import { call, subscribe } from '../api';
import { toReport, useAction, useLoad } from '../hooks';
import { Empty, ErrorBox, Field } from '../components/common';
import { HealthCell, useAgentHealth, type FailedCheck } from '../components/Health';
import { CollectiveCopyAs } from '../components/CollectiveCopyAs';
import { CollectiveOptions, DEFAULT_OPTIONS, fanOutOptionsOf, quorumOf } from '../components/CollectiveOptions';
import { GroupEditor } from '../components/GroupEditor';
import { MemberAnswers } from '../components/MemberAnswers';
import { CollectiveSummary } from '../components/CollectiveSummary';
import { contextOf, liveRow, pendingRow, rowsOf, type MemberRow, type Operation, type Outcome } from '../components/collective-members';
import { useOnShownAgain } from '../components/timers';
import { useViewActive } from '../store';
import { IdLink } from '../components/IdLink';
import type { ChannelOutput } from '../../../shared/ipc/contract';

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
  const [options, setOptions] = useState(DEFAULT_OPTIONS);
  const [live, setLive] = useState<Record<string, MemberRow>>({});
  const [deleted, setDeleted] = useState('');
  useEffect(() => subscribe('collectives.member', (m) => setLive((l) => ({ ...l, [`${m.rank}`]: liveRow(m) }))), []);
  const create = useAction(async () => {
    const made = await call('groups.create', { group: name, members: members.split(/[\s,]+/).filter(Boolean) });
    await groups.run();
    setGroup(made.group_name);
    setDeleted('');
    return made;
  });
  const target = group || groups.data?.groups[0]?.group_name || '';
  // The picked group's members and their health, shown before anything runs.
  const roster = useAction((g: string) => call('groups.show', { group: g }));
  const loadRoster = roster.run;
  useEffect(() => void (target ? loadRoster(target) : undefined), [target, loadRoster]);
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
  /** The group as the editor changed it (null: deleted): the list and the roster follow. */
  const edited = async (next: ChannelOutput<'groups.show'> | null) => {
    await groups.run();
    if (next) roster.setData(next);
    else {
      setDeleted(target);
      setGroup('');
    }
  };
  const run = useAction(async (): Promise<Outcome> => {
    // Every member starts pending; `collectives.member` events move them on as they happen.
    setLive(op === 'round' || op === 'bcast' ? Object.fromEntries(roll.map((m) => [`${m.rank}`, pendingRow(m)])) : {});
    const reduce = { strategy, ...(reducer ? { reducerAgent: reducer } : {}) };
    const fan = fanOutOptionsOf(options);
    const required = quorumOf(options);
    if (op === 'round')
      return {
        op,
        result: await call('collectives.round', {
          group: target,
          inputs: { text },
          ...fan,
          reduce,
          ...(required !== undefined ? { barrier: { required } } : {}),
        }),
      };
    if (op === 'bcast') return { op, result: await call('collectives.bcast', { group: target, inputs: { text, contextId: context || undefined }, ...fan }) };
    if (op === 'barrier')
      return {
        op,
        result: await call('collectives.barrier', { group: target, contextId: context, required, failurePolicy: fan.failurePolicy, timeoutMs: fan.timeoutMs }),
      };
    if (op === 'gather') return { op, result: await call('collectives.gather', { group: target, contextId: context }) };
    return { op, result: await call('collectives.reduce', { group: target, contextId: context, reduce }) };
  });
  // A run contacted the members: their health has news.
  const reloadHealth = health.reload;
  useEffect(() => void (run.data ? reloadHealth() : undefined), [run.data, reloadHealth]);
  // While a run is on, its live rows; the previous outcome is not shown as if it were this run's.
  const out = run.busy ? null : run.data;
  const rows: MemberRow[] = out ? rowsOf(out) : run.busy ? Object.values(live).sort((a, b) => a.rank - b.rank) : [];
  const reduced = out?.op === 'round' ? out.result.reduce : out?.op === 'reduce' ? out.result : null;
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
          <input
            name="group-members"
            value={members}
            onChange={(e) => setMembers(e.target.value)}
            placeholder={`e.g. ${
              (agents.data?.agents ?? [])
                .map((a) => a.alias)
                .slice(0, 3)
                .join(' ') || 'planner critic@2'
            }`}
          />
        </Field>
        <button type="submit">Create group</button>
      </form>
      <ErrorBox error={create.error ?? groups.error} />
      {deleted ? (
        <p role="status" data-testid="group-deleted">
          Deleted group {deleted}; its agents stay registered.
        </p>
      ) : null}
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
            <p className="muted small-text">
              Health is what the journal saw last (card fetches, sends, streams); “Check members” fetches each member’s card now.
            </p>
            <ErrorBox error={roster.error ?? health.error} />
          </div>
          {roster.data && roster.data.group_name === target ? (
            <GroupEditor key={target} group={roster.data} agents={(agents.data?.agents ?? []).map((a) => a.alias)} onChanged={(next) => void edited(next)} />
          ) : null}
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
          <CollectiveOptions op={op} value={options} onChange={setOptions} members={roll.length} />
          <div className="row">
            {op === 'round' || op === 'bcast' ? (
              <Field label="Message">
                <input name="collective-text" value={text} onChange={(e) => setText(e.target.value)} placeholder="e.g. review the launch plan" />
              </Field>
            ) : null}
            <Field label="Context">
              <input
                name="collective-context"
                value={context}
                onChange={(e) => setContext(e.target.value)}
                placeholder={op === 'round' || op === 'bcast' ? 'new context (set by the run)' : 'the context of a bcast'}
              />
            </Field>
            <button onClick={() => void run.run()} disabled={run.busy} data-testid="run-collective">
              Run {op}
            </button>
            <CollectiveCopyAs op={op} group={target} text={text} context={context} strategy={strategy} reducer={reducer} options={options} />
          </div>
        </>
      )}
      <ErrorBox error={run.error} />
      <MemberAnswers rows={rows} running={run.busy} />
      {out ? <CollectiveSummary outcome={out} /> : null}
      {reduced ? (
        <div className="card" data-testid="reduced">
          <h3>
            Reduced ({reduced.strategy} by {reduced.reducer.method})
          </h3>
          <pre className="answer">{reduced.reduced_text}</pre>
          <ul className="provenance">
            {reduced.provenance.map((p) => (
              <li key={p.rank}>
                {p.rank} {p.agent}: {p.status}
                {p.task_id ? (
                  <>
                    {' '}
                    task <IdLink kind="task" id={p.task_id} />
                  </>
                ) : null}
                {p.artifacts.length ? ` · artifacts ${p.artifacts.map((a) => `${a.artifact_id} v${a.version}`).join(', ')}` : ''}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
