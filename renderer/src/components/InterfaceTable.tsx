/**
 * The inspect panel's interface table: every interface the Agent Card declares (binding × A2A version × URL), which
 * one negotiation selected, and whether the agent's credentials would go to it (the origin pin). The selected row's
 * credential decision is the core's own (`origin_pinning`); for the others it is the same rule applied to their URL.
 * Nothing here was probed: it is what the card says and what missive would do with it.
 */
import { originOf } from './origin';

interface DeclaredInterface {
  protocol_binding: string;
  url: string;
  protocol_version: string | null;
  tenant: string | null;
}

interface InspectData {
  agent?: { allow_cross_origin_auth?: boolean };
  card: { supported_interfaces?: DeclaredInterface[]; interfaces_missing?: boolean };
  selected_interface: { binding: string; protocol_binding: string; url: string; protocol_version: string; dialect: string; source: string } | null;
  negotiation?: { supported_bindings?: readonly string[] };
  origin_pinning?: { configured: string[]; pinned_origins: string[]; interface_origin: string | null; decision: string };
}

/** Card binding names (`HTTP+JSON`, `REST`, `JSONRPC`, `GRPC`) → missive's (`http+json`, `json-rpc`, `grpc`). */
function canonical(name: string): string {
  const n = name.trim().toLowerCase().replace(/[\s_]/g, '');
  if (n === 'http+json' || n === 'httpjson' || n === 'rest' || n === 'http') return 'http+json';
  if (n === 'jsonrpc' || n === 'json-rpc' || n === 'jsonrpc2.0') return 'json-rpc';
  return n;
}

const DECISION_TEXT: Record<string, string> = {
  send: 'sent (pinned origin)',
  withhold: 'withheld (other origin)',
  refuse: 'refused: calls fail (other origin)',
  none: 'none configured',
};

/** Where the credentials would go for one URL, by the origin pin. */
function credentialsFor(url: string, view: InspectData): { text: string; kind: string } {
  const pin = view.origin_pinning;
  if (!pin || pin.configured.length === 0) return { text: DECISION_TEXT.none!, kind: 'none' };
  const origin = originOf(url);
  if (origin && pin.pinned_origins.includes(origin)) return { text: DECISION_TEXT.send!, kind: 'send' };
  const kind = view.agent?.allow_cross_origin_auth ? 'withhold' : 'refuse';
  return { text: DECISION_TEXT[kind]!, kind };
}

export function InterfaceTable({ view }: { view: InspectData }) {
  const selected = view.selected_interface;
  const supported = view.negotiation?.supported_bindings ?? ['http+json', 'json-rpc', 'grpc'];
  const declared = view.card.supported_interfaces ?? [];
  const isSelected = (i: DeclaredInterface) => !!selected && i.url === selected.url && canonical(i.protocol_binding) === selected.binding;
  // An interface negotiation took from the registry or the base URL is not in the card: it gets a row of its own.
  const rows: Array<DeclaredInterface & { note?: string }> = declared.some(isSelected) || !selected ? [...declared] : [...declared, { protocol_binding: selected.protocol_binding, url: selected.url, protocol_version: null, tenant: null, note: selected.source.replace(/_/g, ' ') }];
  return (
    <div className="interface-table-wrap">
      <table className="table interface-table" data-testid="interfaces">
        <caption>
          Interfaces the card declares, and what missive would do with each. <span className="muted">Not probed: no conformance check has run.</span>
        </caption>
        <thead>
          <tr>
            <th>Binding</th>
            <th>A2A</th>
            <th>URL</th>
            <th>Credentials</th>
            <th>Negotiation</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((i) => {
            const chosen = isSelected(i) || (!!i.note && !!selected);
            const credentials = chosen && view.origin_pinning ? { text: DECISION_TEXT[view.origin_pinning.decision] ?? view.origin_pinning.decision, kind: view.origin_pinning.decision } : credentialsFor(i.url, view);
            const usable = supported.includes(canonical(i.protocol_binding));
            return (
              <tr key={`${i.protocol_binding} ${i.url}`} className={chosen ? 'selected' : undefined} data-testid="interface-row" data-selected={chosen}>
                <td>{i.protocol_binding}</td>
                <td>{i.protocol_version ?? <span className="muted">{chosen && selected ? selected.protocol_version : 'unknown'}</span>}</td>
                <td className="mono cell-id">
                  {i.url}
                  {i.tenant ? <span className="muted"> · tenant {i.tenant}</span> : null}
                  {i.note ? <span className="muted"> · {i.note}</span> : null}
                </td>
                <td className={`cred cred-${credentials.kind}`}>{credentials.text}</td>
                <td>{chosen && selected ? <strong>selected · speaks A2A {selected.dialect}</strong> : usable ? <span className="muted">not selected</span> : <span className="muted">binding not supported</span>}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
