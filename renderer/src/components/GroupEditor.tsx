/**
 * Edits a group in place: members (add, move to another rank, remove), the routing policy and notes, and deleting
 * the group after a confirmation. Each change is one call to the core (`groups.addMember|removeMember|update|delete`,
 * the services behind `missive group add|remove|set|delete`), and the group as the core then holds it is shown.
 */
import { useState } from 'react';
import { call } from '../api';
import { useAction } from '../hooks';
import { ErrorBox, Field } from './common';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import '../collectives.css';

type GroupView = ChannelOutput<'groups.show'>;
const POLICIES = ['first', 'round-robin', 'capability-match'] as const;
type Policy = (typeof POLICIES)[number];
const isPolicy = (p: string): p is Policy => (POLICIES as readonly string[]).includes(p);

interface Props {
  group: GroupView;
  /** Registered agent aliases (candidates to add). */
  agents: string[];
  /** The group after a change, or null once it was deleted. */
  onChanged: (group: GroupView | null) => void;
}

export function GroupEditor({ group, agents, onChanged }: Props) {
  const name = group.group_name;
  const members = [...group.members].sort((a, b) => a.rank - b.rank);
  const [ranks, setRanks] = useState<Record<string, string>>({});
  const [adding, setAdding] = useState('');
  const [addRank, setAddRank] = useState('');
  const [policy, setPolicy] = useState<Policy | ''>(isPolicy(group.routing_policy) ? group.routing_policy : '');
  const [notes, setNotes] = useState(group.notes ?? '');
  const [confirming, setConfirming] = useState(false);
  const [said, setSaid] = useState('');
  const change = useAction(async (what: string, apply: () => Promise<GroupView | null>) => {
    const next = await apply();
    setSaid(what);
    setRanks({});
    onChanged(next);
    return next;
  });
  const candidates = agents.filter((a) => !members.some((m) => m.agent_alias === a));
  const pick = adding && candidates.includes(adding) ? adding : (candidates[0] ?? '');
  const rankOf = (alias: string, rank: number) => ranks[alias] ?? String(rank);
  const settingsChanged = (policy !== '' && policy !== group.routing_policy) || notes !== (group.notes ?? '');
  return (
    <details className="card group-editor" data-testid="group-editor">
      <summary>Edit group {name}</summary>
      <table className="table">
        <thead>
          <tr>
            <th>Rank</th>
            <th>Member</th>
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {members.map((m) => (
            <tr key={m.agent_alias} data-testid="editor-member" data-member={m.agent_alias}>
              <td>
                <input
                  className="rank-input"
                  type="number"
                  min={0}
                  step={1}
                  aria-label={`Rank of ${m.agent_alias}`}
                  value={rankOf(m.agent_alias, m.rank)}
                  onChange={(e) => setRanks((r) => ({ ...r, [m.agent_alias]: e.target.value }))}
                />
              </td>
              <td>{m.agent_alias}</td>
              <td className="row-actions">
                <button
                  type="button"
                  className="small secondary"
                  disabled={change.busy || rankOf(m.agent_alias, m.rank) === String(m.rank)}
                  aria-label={`Set rank of ${m.agent_alias} to ${rankOf(m.agent_alias, m.rank)}`}
                  onClick={() =>
                    void change.run(`moved ${m.agent_alias} to rank ${rankOf(m.agent_alias, m.rank)}`, () =>
                      call('groups.addMember', { group: name, alias: m.agent_alias, rank: Number(rankOf(m.agent_alias, m.rank)) }),
                    )
                  }
                >
                  Set rank
                </button>{' '}
                <button
                  type="button"
                  className="small secondary"
                  disabled={change.busy}
                  aria-label={`Remove ${m.agent_alias} from ${name}`}
                  onClick={() => void change.run(`removed ${m.agent_alias}`, () => call('groups.removeMember', { group: name, alias: m.agent_alias }))}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (!pick) return;
          void change
            .run(`added ${pick}`, () => call('groups.addMember', { group: name, alias: pick, ...(addRank.trim() ? { rank: Number(addRank) } : {}) }))
            .then(() => setAddRank(''));
        }}
      >
        <Field label="Add member">
          <select name="add-member" value={pick} onChange={(e) => setAdding(e.target.value)} disabled={!candidates.length}>
            {candidates.length ? candidates.map((a) => <option key={a}>{a}</option>) : <option value="">every agent is a member</option>}
          </select>
        </Field>
        <Field label="At rank (blank: the smallest free one)">
          <input name="add-member-rank" type="number" min={0} step={1} value={addRank} onChange={(e) => setAddRank(e.target.value)} />
        </Field>
        <button type="submit" disabled={change.busy || !pick}>
          Add member
        </button>
      </form>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          void change.run('saved the settings', () =>
            call('groups.update', {
              group: name,
              ...(policy !== '' && policy !== group.routing_policy ? { routingPolicy: policy } : {}),
              ...(notes !== (group.notes ?? '') ? { notes } : {}),
            }),
          );
        }}
      >
        <Field label="Routing policy (route explain)">
          <select name="routing-policy" value={policy} onChange={(e) => setPolicy(isPolicy(e.target.value) ? e.target.value : '')}>
            {policy === '' ? <option value="">not set ([routing].default_policy, then first)</option> : null}
            {POLICIES.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </Field>
        <Field label="Notes">
          <input name="group-notes" value={notes} onChange={(e) => setNotes(e.target.value)} />
        </Field>
        <button type="submit" disabled={change.busy || !settingsChanged}>
          Save settings
        </button>
      </form>
      <div className="row actions">
        {confirming ? (
          <>
            <span>Delete group {name}? Its agents stay registered.</span>
            <button
              type="button"
              className="small danger"
              disabled={change.busy}
              onClick={() => void change.run(`deleted ${name}`, async () => (await call('groups.delete', { group: name }), null))}
            >
              Confirm delete
            </button>
            <button type="button" className="small secondary" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </>
        ) : (
          <button type="button" className="small secondary" onClick={() => setConfirming(true)}>
            Delete group
          </button>
        )}
      </div>
      <p className="muted small-text" role="status" data-testid="group-editor-status">
        {said ? `Done: ${said}.` : ''}
      </p>
      <ErrorBox error={change.error} />
    </details>
  );
}
