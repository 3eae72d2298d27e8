/**
 * The Agents view's inspect panel: the card, the negotiated interface, the card's warnings (the card stays usable),
 * the interface table, signature, client certificate, security schemes and the card as served.
 */
import { jsonAt, JsonTree, stringOf } from './common';
import { InterfaceTable } from './InterfaceTable';
import { CardSignature } from './CardSignature';
import { ClientCertificate } from './ClientCertificate';
import { SecuritySchemes } from './SecuritySchemes';
import { CardWarnings } from './CardWarnings';
import { AuthNeeded } from './AuthNeeded';
import { Time } from './Time';
import { DetailHeading } from './MasterDetail';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import '../agents.css';

type InspectView = ChannelOutput<'agents.inspect'>;

/** Where the agent's credentials go on the selected interface (the same decision the calls make). */
function credentialText(c: InspectView['origin_pinning']): string {
  if (c.configured.length === 0) return 'none configured';
  const what = c.configured.join(', ');
  if (c.decision === 'send') return `${what}: sent (same origin)`;
  if (c.decision === 'withhold') return `${what}: withheld, ${c.interface_origin} is another origin`;
  return `${what}: pinned to ${c.pinned_origins.join(', ')}; calls to ${c.interface_origin} are refused`;
}

/** `reveal`: goes up with each inspect asked for; the card's heading then comes into view and takes the focus. */
export function AgentCardPanel({ view, busy, onRefetch, reveal = 0 }: { view: InspectView; busy: boolean; onRefetch: () => void; reveal?: number }) {
  return (
    <div className="card" data-testid="agent-card">
      <div className="card-head">
        <DetailHeading reveal={reveal}>{view.card.name}</DetailHeading>
        <button type="button" className="small" onClick={onRefetch} disabled={busy}>
          Fetch card again
        </button>
      </div>
      <p className="muted">{view.card.description}</p>
      <AuthNeeded view={view} onBound={onRefetch} />
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
      <CardWarnings warnings={view.card_warnings} />
      <InterfaceTable view={view} />
      <CardSignature view={view} />
      <ClientCertificate view={view} />
      <SecuritySchemes view={view} />
      <details className="raw-json" data-testid="raw-card-details">
        <summary>The card as served (raw JSON)</summary>
        <pre className="raw-card-json mono" tabIndex={0}>
          {JSON.stringify(view.raw_card, null, 2)}
        </pre>
      </details>
      <details className="raw-json">
        <summary>
          Everything <code>agents.inspect</code> returned (JSON)
        </summary>
        <JsonTree value={view} label="inspect" />
      </details>
    </div>
  );
}
