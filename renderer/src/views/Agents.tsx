/**
 * The Agents view: register agents, start the demo agents, refresh every card at once (with each agent's result),
 * the registered agents with their card's age and their health (reachable, unreachable with the error's code, or
 * never contacted), and the inspect panel: the card, the negotiated interface and the interface table.
 */
import { useState } from 'react';
import { call } from '../api';
import { useAction, useLoad } from '../hooks';
import { Empty, ErrorBox, Field, jsonAt, JsonTree, stringOf } from '../components/common';
import { HealthCell, useAgentHealth } from '../components/Health';
import { InterfaceTable } from '../components/InterfaceTable';
import { CardSignature } from '../components/CardSignature';
import { ClientCertificate } from '../components/ClientCertificate';
import { SecuritySchemes } from '../components/SecuritySchemes';
import { Time } from '../components/Time';
import type { ChannelOutput } from '../../../shared/ipc/contract';

type InspectView = ChannelOutput<'agents.inspect'>;

/** Where the agent's credentials go on the selected interface (the same decision the calls make). */
function credentialText(c: InspectView['origin_pinning']): string {
  if (c.configured.length === 0) return 'none configured';
  const what = c.configured.join(', ');
  if (c.decision === 'send') return `${what}: sent (same origin)`;
  if (c.decision === 'withhold') return `${what}: withheld, ${c.interface_origin} is another origin`;
  return `${what}: pinned to ${c.pinned_origins.join(', ')}; calls to ${c.interface_origin} are refused`;
}

export function AgentsView() {
  const list = useLoad(() => call('agents.list', {}), []);
  const health = useAgentHealth();
  const reloadAll = async () => void (await Promise.all([list.run(), health.reload()]));
  const [alias, setAlias] = useState('');
  const [url, setUrl] = useState('');
  const add = useAction(async () => {
    const added = await call('agents.add', { alias, baseUrl: url });
    await reloadAll();
    return added;
  });
  const inspect = useAction(async (a: string, refresh: boolean) => {
    const view = await call('agents.inspect', { alias: a, refresh });
    await reloadAll();
    return view;
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
  const view = inspect.data;
  const failures = refreshAll.data?.agents.filter((a) => !a.ok).length ?? 0;
  return (
    <section className="view" data-testid="view-agents">
      <h2>Agents</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          void add.run();
        }}
      >
        <Field label="Alias">
          <input name="alias" value={alias} onChange={(e) => setAlias(e.target.value)} placeholder="e.g. planner" />
        </Field>
        <Field label="Base URL">
          <input name="baseUrl" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="e.g. https://agent.example.com" />
        </Field>
        <button type="submit" disabled={add.busy}>
          Register
        </button>
        <button type="button" onClick={() => void demo.run()} disabled={demo.busy} data-testid="start-demo">
          Start demo agents
        </button>
      </form>
      <ErrorBox error={add.error ?? demo.error ?? list.error} />
      {agents.length === 0 ? (
        <Empty title="No agents yet">Register one by alias and base URL, or press “Start demo agents” to try everything with embedded agents.</Empty>
      ) : (
        <>
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
              {agents.map((a) => (
                <tr key={a.alias}>
                  <td>{a.alias}</td>
                  <td className="mono cell-id">{a.base_url}</td>
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
                  <td>
                    <button type="button" className="small" onClick={() => void inspect.run(a.alias, !a.card.cached)} aria-label={`Inspect ${a.alias}`}>
                      Inspect
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <ErrorBox error={inspect.error} />
      {view ? (
        <div className="card" data-testid="agent-card">
          <div className="card-head">
            <h3>{view.card.name}</h3>
            <button type="button" className="small" onClick={() => void inspect.run(view.agent.alias, true)} disabled={inspect.busy}>
              Fetch card again
            </button>
          </div>
          <p className="muted">{view.card.description}</p>
          <dl className="kv">
            <dt>Provider</dt>
            <dd>{stringOf(jsonAt(view.card.provider, 'organization')) ?? '-'}</dd>
            <dt>Version</dt>
            <dd>{view.card.version ?? '-'}</dd>
            <dt>Card format</dt>
            <dd data-testid="card-format">
              A2A {view.card.format}
              {view.card.declared_protocol_version ? ` (declares ${view.card.declared_protocol_version})` : ''}
            </dd>
            <dt>Card fetched</dt>
            <dd>
              <Time at={view.cache.fetched_at} fallback="never" /> <span className="muted">({view.cache.status})</span>
            </dd>
            <dt>Selected interface</dt>
            <dd data-testid="selected-interface">
              {view.selected_interface
                ? `${view.selected_interface.binding} ${view.selected_interface.url} · speaks A2A ${view.selected_interface.dialect}`
                : `none: ${view.negotiation.error?.message ?? 'no binding in common'}`}
            </dd>
            <dt>Credentials</dt>
            <dd data-testid="credentials">{credentialText(view.origin_pinning)}</dd>
            <dt>Capabilities</dt>
            <dd>
              {Object.entries(view.card.capabilities)
                .filter(([, v]) => !(Array.isArray(v) && v.length === 0))
                .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.length : String(v)}`)
                .join(', ') || '-'}
            </dd>
            <dt>Skills</dt>
            <dd>{view.card.skills.map((s) => s.name ?? s.id).join(', ') || '-'}</dd>
          </dl>
          <InterfaceTable view={view} />
          <CardSignature view={view} />
          <ClientCertificate view={view} />
          <SecuritySchemes view={view} />
          <details className="raw-json">
            <summary>
              Everything <code>agents.inspect</code> returned (JSON)
            </summary>
            <JsonTree value={view} label="inspect" />
          </details>
        </div>
      ) : null}
    </section>
  );
}
