/**
 * The inspect panel's interface table: every interface the Agent Card declares (binding × A2A version × URL), which
 * one negotiation selected and why (the core's `reason`, the words `agent inspect` prints), which it skipped because
 * missive cannot call them, and whether the agent's credentials would go to it (the origin pin). A relative URL shows
 * where it resolved to. The selected row's
 * credential decision is the core's own (`origin_pinning`); for the others it is the same rule applied to their URL.
 * The table itself is what the card says and what missive would do with it; the "Run conformance probe" button calls
 * `agents.conformance` and shows what each interface actually answered (ConformanceTable).
 */
import { useState } from 'react';
import { call } from '../api';
import { useAction } from '../hooks';
import { ErrorBox } from './common';
import { ConformanceTable } from './ConformanceTable';
import { originOf } from '../../../shared/origins';
import type { ChannelOutput } from '../../../shared/ipc/contract';

type InspectData = ChannelOutput<'agents.inspect'>;
type DeclaredInterface = InspectData['card']['supported_interfaces'][number];

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
  if (pin.configured.length === 0) return { text: DECISION_TEXT.none!, kind: 'none' };
  const origin = originOf(url);
  if (origin && pin.pinned_origins.includes(origin)) return { text: DECISION_TEXT.send!, kind: 'send' };
  const kind = view.agent.allow_cross_origin_auth ? 'withhold' : 'refuse';
  return { text: DECISION_TEXT[kind]!, kind };
}

/** The probe button, its "include sends" choice, and the report of the last probe of this agent. */
function ConformanceProbe({ alias, onProbed }: { alias: string; onProbed: (alias: string) => void }) {
  const [includeSend, setIncludeSend] = useState(false);
  const probe = useAction(async () => {
    const report = await call('agents.conformance', { alias, includeSend });
    onProbed(alias);
    return report;
  });
  const report = probe.data && probe.data.alias === alias ? probe.data : null;
  return (
    <div className="conformance-probe">
      <button type="button" onClick={() => void probe.run()} disabled={probe.busy} data-testid="run-conformance">
        {probe.busy ? 'Probing…' : 'Run conformance probe'}
      </button>{' '}
      <label className="muted">
        <input type="checkbox" checked={includeSend} onChange={(e) => setIncludeSend(e.target.checked)} data-testid="conformance-include-send" /> also send one
        short message per interface
      </label>
      <ErrorBox error={probe.error} />
      {report ? <ConformanceTable report={report} /> : null}
    </div>
  );
}

export function InterfaceTable({ view }: { view: InspectData }) {
  const selected = view.selected_interface;
  const [probedAlias, setProbedAlias] = useState<string | null>(null);
  const probed = probedAlias === view.agent.alias;
  const supported = view.negotiation.supported_bindings;
  const declared = view.card.supported_interfaces;
  // The card's own position when negotiation gives it (one URL may be listed for two versions), else URL and binding.
  const isSelected = (i: DeclaredInterface & { index?: number }) =>
    !!selected &&
    (typeof selected.card_index === 'number' ? i.index === selected.card_index : i.url === selected.url && canonical(i.protocol_binding) === selected.binding);
  const skippedAt = new Map((selected?.skipped ?? []).map((s) => [s.card_index, s.reason] as const));
  const indexed = declared.map((i, index) => ({ ...i, index }));
  // An interface negotiation took from the registry or the base URL is not in the card: it gets a row of its own.
  const rows: Array<DeclaredInterface & { note?: string; index?: number }> =
    indexed.some(isSelected) || !selected
      ? indexed
      : [
          ...indexed,
          { protocol_binding: selected.protocol_binding, url: selected.url, protocol_version: null, tenant: null, note: selected.source.replace(/_/g, ' ') },
        ];
  return (
    <div className="interface-table-wrap">
      <table className="table interface-table" data-testid="interfaces">
        <caption>
          Interfaces the card declares, and what missive would do with each.{' '}
          <span className="muted">
            {probed ? 'Probed: the conformance table below shows what each answered.' : 'Not probed: no conformance check has run.'}
          </span>
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
            const credentials = chosen
              ? { text: DECISION_TEXT[view.origin_pinning.decision] ?? view.origin_pinning.decision, kind: view.origin_pinning.decision }
              : credentialsFor(i.url, view);
            const usable = supported.includes(canonical(i.protocol_binding));
            const skipped = i.index === undefined ? undefined : skippedAt.get(i.index);
            return (
              <tr
                key={`${i.index ?? 'extra'} ${i.protocol_binding} ${i.url}`}
                className={chosen ? 'selected' : skipped ? 'skipped' : undefined}
                data-testid="interface-row"
                data-selected={chosen}
                data-skipped={!!skipped}
              >
                <td>{i.protocol_binding}</td>
                <td>{i.protocol_version ?? <span className="muted">{chosen && selected ? selected.protocol_version : 'unknown'}</span>}</td>
                <td className="mono cell-id">
                  {i.url}
                  {chosen && selected?.declared_url ? <span className="muted"> → {selected.url}</span> : null}
                  {i.tenant ? <span className="muted"> · tenant {i.tenant}</span> : null}
                  {i.note ? <span className="muted"> · {i.note}</span> : null}
                </td>
                <td className={`cred cred-${credentials.kind}`}>{credentials.text}</td>
                <td>
                  {chosen && selected ? (
                    <>
                      <strong>selected · speaks A2A {selected.dialect}</strong>
                      {selected.reason ? (
                        <span className="muted interface-reason" data-testid="interface-reason">
                          {' '}
                          · {selected.reason}
                        </span>
                      ) : null}
                    </>
                  ) : skipped ? (
                    <span className="interface-skipped" data-testid="interface-skipped">
                      skipped: missive cannot call it ({skipped})
                    </span>
                  ) : usable ? (
                    <span className="muted">not selected</span>
                  ) : (
                    <span className="muted">binding not supported</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <ConformanceProbe key={view.agent.alias} alias={view.agent.alias} onProbed={setProbedAlias} />
    </div>
  );
}
