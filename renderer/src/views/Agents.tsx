/**
 * The Agents view: register agents with their auth (the card is fetched first: a card that cannot be fetched or read
 * registers nothing, and a refused card is shown as served with every issue), edit and remove them, start the demo
 * agents, refresh every card at once, the registered agents with their card's age and health, and the inspect panel
 * (AgentCardPanel: the card, its warnings, interfaces, trust). A failed inspect clears the card shown before it.
 * The list has a filter (alias, URL, card name); the inspected agent's card is shown beside the list (a drawer on a
 * narrow window), in view with its heading focused, after Inspect, Register, Edit or the palette's "open in Agents".
 */
import { useEffect, useState } from 'react';
import { call } from '../api';
import { useAction, useLoad, useSharedStore } from '../hooks';
import { Empty, ErrorBox } from '../components/common';
import { HealthCell, useAgentHealth } from '../components/Health';
import { Time } from '../components/Time';
import { AgentForm } from '../components/AgentForm';
import { AgentCardPanel } from '../components/AgentCardPanel';
import { RawCard, REFUSED_CARD_CODES, type RawCardTarget } from '../components/RawCard';
import { ListFilter, MasterDetail, matchesFilter } from '../components/MasterDetail';
import { useNavigationTarget } from '../store';
import { SecretMissing, useSecretGaps } from '../components/SecretMissing';
import '../agents.css';

export function AgentsView() {
  const list = useLoad(() => call('agents.list', {}), []);
  const sharedStore = useSharedStore();
  const health = useAgentHealth();
  const secretGaps = useSecretGaps(list.data);
  const reloadAll = async () => void (await Promise.all([list.run(), health.reload()]));
  /** A new key empties the register form after a registration. */
  const [formKey, setFormKey] = useState(0);
  const [editing, setEditing] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  /** The card to show as served: after a refused card at register or inspect. */
  const [refused, setRefused] = useState<RawCardTarget | null>(null);
  const [inspected, setInspected] = useState<string | null>(null);
  /** Goes up with every inspect asked for: the card's heading then comes into view and takes the focus. */
  const [reveal, setReveal] = useState(0);
  const [filter, setFilter] = useState('');
  const inspect = useAction(async (a: string, refresh: boolean) => {
    try {
      return await call('agents.inspect', { alias: a, refresh });
    } finally {
      await reloadAll();
    }
  });
  const runInspect = (a: string, refresh: boolean) => {
    // The card of the agent inspected before is not left under this one's outcome (or error).
    inspect.setData(null);
    setInspected(a);
    setRefused(null);
    setReveal((n) => n + 1);
    void inspect.run(a, refresh).then((v) => {
      if (!v) setRefused({ alias: a });
    });
  };
  const closeCard = () => {
    setInspected(null);
    setRefused(null);
    inspect.setData(null);
    inspect.setError(null);
  };
  // The palette's "<alias>: open in Agents": that agent selected, its card shown.
  const target = useNavigationTarget('agent');
  useEffect(() => {
    if (!target) return;
    const known = list.data?.agents.find((a) => a.alias === target.id);
    runInspect(target.id, known ? !known.card.cached : false);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- inspect once per navigation target; runInspect is a fresh closure each render
  }, [target]);
  const remove = useAction(async (a: string) => {
    const removed = await call('agents.remove', { alias: a });
    setConfirming(null);
    if (inspect.data?.agent.alias === a) inspect.setData(null);
    if (inspected === a) setInspected(null);
    await reloadAll();
    return removed;
  });
  const demo = useAction(async () => {
    const started = await call('demo.start', {});
    await reloadAll();
    return started;
  });
  const refreshAll = useAction(async () => {
    const refreshed = await call('agents.refreshAll', {});
    await reloadAll();
    return refreshed;
  });
  const agents = list.data?.agents ?? [];
  const listed = agents.filter((a) => matchesFilter(filter, [a.alias, a.base_url, a.card.name, a.auth_ref]));
  const view = inspect.data && inspect.data.agent.alias === inspected ? inspect.data : null;
  const failures = refreshAll.data?.agents.filter((a) => !a.ok).length ?? 0;
  const editAgent = agents.find((a) => a.alias === editing);
  const showRefused = refused && ('url' in refused || (inspect.error && REFUSED_CARD_CODES.includes(inspect.error.code) && !inspect.busy));
  const detail =
    inspected !== null && (view || inspect.busy || inspect.error || (showRefused && refused && 'alias' in refused)) ? (
      <>
        <ErrorBox error={inspect.error} />
        {showRefused && refused && 'alias' in refused ? <RawCard target={refused} /> : null}
        {inspect.busy && !view ? (
          <p className="muted" role="status">
            Inspecting {inspected}…
          </p>
        ) : null}
        {view ? <AgentCardPanel view={view} busy={inspect.busy} reveal={reveal} onRefetch={() => runInspect(view.agent.alias, true)} /> : null}
      </>
    ) : null;
  return (
    <section className="view" data-testid="view-agents">
      <h2>Agents</h2>
      <div className="card">
        <div className="card-head">
          <h3>Register an agent</h3>
          {sharedStore === false ? (
            <button type="button" className="small secondary" onClick={() => void demo.run()} disabled={demo.busy} data-testid="start-demo">
              Start demo agents
            </button>
          ) : null}
        </div>
        <AgentForm
          key={formKey}
          onDone={(alias) => {
            setFormKey((k) => k + 1);
            setRefused(null);
            void reloadAll();
            runInspect(alias, false);
          }}
          onAddFailed={(url, error) => setRefused(REFUSED_CARD_CODES.includes(error.code) ? { url } : null)}
        />
      </div>
      {editAgent ? (
        <div className="card">
          <h3>Edit {editAgent.alias}</h3>
          <AgentForm
            key={editAgent.alias}
            agent={editAgent}
            onDone={(alias) => {
              setEditing(null);
              void reloadAll();
              runInspect(alias, true);
            }}
            onCancel={() => setEditing(null)}
          />
        </div>
      ) : null}
      {showRefused && refused && 'url' in refused ? <RawCard target={refused} /> : null}
      <ErrorBox error={demo.error ?? list.error ?? remove.error} />
      {agents.length === 0 ? (
        <Empty title="No agents yet">
          {sharedStore
            ? 'Register one by alias and base URL (with its auth, when it needs some): every user of this shared store sees it. The demo agents run on a personal store only.'
            : 'Register one by alias and base URL (with its auth, when it needs some), or press “Start demo agents” to try everything with embedded agents.'}
        </Empty>
      ) : (
        <MasterDetail detail={detail} label="agent card" onClose={closeCard} testId="agents-master-detail">
          <div className="row toolbar">
            <button type="button" onClick={() => void refreshAll.run()} disabled={refreshAll.busy} data-testid="refresh-all">
              {refreshAll.busy ? 'Refreshing…' : 'Refresh all'}
            </button>
            <span className="muted small-text">fetches every agent’s card again (at most 4 at once) and updates the health column</span>
          </div>
          <ErrorBox error={refreshAll.error ?? health.error} />
          {refreshAll.data ? (
            <div className="card refresh-results" data-testid="refresh-results" role="status">
              <div className="card-head">
                <strong>
                  {refreshAll.data.agents.length - failures} of {refreshAll.data.agents.length} refreshed{failures ? `, ${failures} failed` : ''}
                </strong>
                <button type="button" className="small secondary" onClick={() => refreshAll.setData(null)} aria-label="Dismiss the refresh results">
                  Dismiss
                </button>
              </div>
              <ul>
                {refreshAll.data.agents.map((r) => (
                  <li key={r.alias} className={r.ok ? 'refresh-ok' : 'refresh-failed'} data-testid="refresh-result" data-ok={r.ok}>
                    <span aria-hidden="true">{r.ok ? '✓' : '✗'}</span> <strong>{r.alias}</strong> <span className="muted">{r.latency_ms} ms</span>
                    {r.error ? (
                      <>
                        {' '}
                        <span className="error-code">{r.error.code}</span> <span className="muted">{r.error.message}</span>
                      </>
                    ) : null}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          <ListFilter
            name="agent-filter"
            label="Filter agents"
            value={filter}
            onChange={setFilter}
            placeholder="alias, URL or card name"
            shown={listed.length}
            total={agents.length}
          />
          <table className="table agents-table" data-testid="agents-table">
            <thead>
              <tr>
                <th>Alias</th>
                <th>Base URL</th>
                <th>Card</th>
                <th>Health</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {listed.map((a) => (
                <tr key={a.alias} data-testid="agent-row" data-alias={a.alias} className={inspected === a.alias ? 'selected' : undefined}>
                  <td>
                    {a.alias}
                    {a.auth_ref ? <div className="muted small-text">auth: {a.auth_ref}</div> : null}
                    <SecretMissing alias={a.alias} authRef={a.auth_ref} gaps={secretGaps} />
                  </td>
                  <td className="mono agent-url">{a.base_url}</td>
                  <td>{a.card.cached ? (a.card.name ?? 'cached') : <span className="muted">not fetched</span>}</td>
                  <td data-testid="agent-health">
                    <HealthCell health={health.byAlias.get(a.alias)} />
                    <div className="muted small-text" data-testid="card-age">
                      {a.card.fetched_at ? (
                        <>
                          card fetched <Time at={a.card.fetched_at} show="age" />
                        </>
                      ) : (
                        'card never fetched'
                      )}
                    </div>
                  </td>
                  <td className="row-actions">
                    <button type="button" className="small" onClick={() => runInspect(a.alias, !a.card.cached)} aria-label={`Inspect ${a.alias}`}>
                      Inspect
                    </button>
                    <button
                      type="button"
                      className="small secondary"
                      onClick={() => setEditing(a.alias)}
                      disabled={a.read_only}
                      aria-label={`Edit ${a.alias}`}
                      title={a.read_only ? 'from the config file: edit it there' : undefined}
                    >
                      Edit
                    </button>
                    {confirming === a.alias ? (
                      <button
                        type="button"
                        className="small danger"
                        onClick={() => void remove.run(a.alias)}
                        disabled={remove.busy}
                        aria-label={`Confirm removing ${a.alias}`}
                      >
                        Confirm remove
                      </button>
                    ) : (
                      <button
                        type="button"
                        className="small secondary"
                        onClick={() => setConfirming(a.alias)}
                        disabled={a.read_only}
                        aria-label={`Remove ${a.alias}`}
                      >
                        Remove
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </MasterDetail>
      )}
      {agents.length === 0 ? detail : null}
    </section>
  );
}
