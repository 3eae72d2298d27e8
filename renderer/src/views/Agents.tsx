import { useState } from 'react';
import { call } from '../api';
import { useAction, useLoad } from '../hooks';
import { Empty, ErrorBox, Field, JsonTree } from '../components/common';

/** Where the agent's credentials go on the selected interface (the same decision the calls make). */
function credentialText(c: { configured: string[]; decision: string; pinned_origins: string[]; interface_origin: string | null } | undefined): string {
  if (!c || c.configured.length === 0) return 'none configured';
  const what = c.configured.join(', ');
  if (c.decision === 'send') return `${what}: sent (same origin)`;
  if (c.decision === 'withhold') return `${what}: withheld, ${c.interface_origin} is another origin`;
  return `${what}: pinned to ${c.pinned_origins.join(', ')}; calls to ${c.interface_origin} are refused`;
}

export function AgentsView() {
  const list = useLoad(() => call('agents.list', {}), []);
  const [alias, setAlias] = useState('');
  const [url, setUrl] = useState('');
  const add = useAction(async () => {
    const added = await call('agents.add', { alias, baseUrl: url });
    await list.run();
    return added;
  });
  const inspect = useAction(async (a: string, refresh: boolean) => {
    const view = await call('agents.inspect', { alias: a, refresh });
    await list.run();
    return view;
  });
  const demo = useAction(async () => {
    const started = await call('demo.start', {});
    await list.run();
    return started;
  });
  const agents = list.data?.agents ?? [];
  const view = inspect.data as any;
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
          <input name="alias" value={alias} onChange={(e) => setAlias(e.target.value)} placeholder="planner" />
        </Field>
        <Field label="Base URL">
          <input name="baseUrl" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="http://127.0.0.1:41241" />
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
        <table className="table" data-testid="agents-table">
          <thead>
            <tr>
              <th>Alias</th>
              <th>Base URL</th>
              <th>Card</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {agents.map((a: any) => (
              <tr key={a.alias}>
                <td>{a.alias}</td>
                <td className="mono">{a.base_url}</td>
                <td>{a.card?.cached ? a.card.name ?? 'cached' : 'not fetched'}</td>
                <td>
                  <button onClick={() => void inspect.run(a.alias, !a.card?.cached)}>Inspect</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorBox error={inspect.error} />
      {view ? (
        <div className="card" data-testid="agent-card">
          <h3>{view.card.name}</h3>
          <p className="muted">{view.card.description}</p>
          <dl className="kv">
            <dt>Provider</dt>
            <dd>{view.card.provider?.organization ?? '-'}</dd>
            <dt>Version</dt>
            <dd>{view.card.version ?? '-'}</dd>
            <dt>Card format</dt>
            <dd data-testid="card-format">
              A2A {view.card.format}
              {view.card.declared_protocol_version ? ` (declares ${view.card.declared_protocol_version})` : ''}
            </dd>
            <dt>Selected interface</dt>
            <dd data-testid="selected-interface">
              {view.selected_interface
                ? `${view.selected_interface.binding} ${view.selected_interface.url} · speaks A2A ${view.selected_interface.dialect}`
                : `none: ${view.negotiation?.error?.message ?? 'no binding in common'}`}
            </dd>
            <dt>Credentials</dt>
            <dd data-testid="credentials">{credentialText(view.origin_pinning)}</dd>
            <dt>Capabilities</dt>
            <dd>
              {Object.entries(view.card.capabilities ?? {})
                .filter(([, v]) => !(Array.isArray(v) && v.length === 0))
                .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.length : String(v)}`)
                .join(', ') || '-'}
            </dd>
            <dt>Skills</dt>
            <dd>{(view.card.skills ?? []).map((s: any) => s.name ?? s.id).join(', ') || '-'}</dd>
            <dt>Interfaces</dt>
            <dd data-testid="interfaces">
              {(view.card.supported_interfaces ?? []).map((i: any) => (
                <div key={i.url} className="mono">
                  {i.protocol_binding} {i.url} {i.protocol_version ? `(A2A ${i.protocol_version})` : ''} {i.url === view.selected_interface?.url ? '← selected' : ''}
                </div>
              ))}
            </dd>
          </dl>
          <JsonTree value={view} label="inspect" />
        </div>
      ) : null}
    </section>
  );
}
