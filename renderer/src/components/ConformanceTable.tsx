/**
 * The conformance probe's table on the agent page: one row per operation, one column per card interface (binding and
 * dialect), each cell `ok` / the failing error code / `not advertised` / `not in 0.3` / `skipped`, with its latency;
 * below it every failure with its full code and message, and the counts. The same report `missive conformance` prints.
 */
import type { ChannelOutput } from '../../../shared/ipc/contract';

export type ConformanceReport = ChannelOutput<'agents.conformance'>;
type Cell = ConformanceReport['interfaces'][number]['cells'][number];

const LABEL: Record<Cell['status'], string> = { ok: 'ok', failed: 'failed', skipped: 'skipped', not_advertised: 'not advertised', 'not_in_0.3': 'not in 0.3' };
const TONE: Record<Cell['status'], string> = { ok: 'cred-send', failed: 'cred-refuse', skipped: 'muted', not_advertised: 'muted', 'not_in_0.3': 'muted' };

/** The reason part of a stable code (`missive::transport::http_status` → `http_status`). */
const reason = (code: string | null) => (code ? code.split('::').pop() : '');

function CellView({ cell }: { cell: Cell | undefined }) {
  if (!cell) return <td className="muted">-</td>;
  const text = cell.status === 'failed' ? reason(cell.code) : LABEL[cell.status];
  return (
    <td
      className={TONE[cell.status]}
      data-testid="conformance-cell"
      data-status={cell.status}
      data-operation={cell.operation}
      title={[cell.message, cell.note].filter(Boolean).join(' · ') || undefined}
    >
      {cell.status === 'failed' ? <strong>{text}</strong> : text}
      {cell.latency_ms !== null ? <span className="muted"> · {cell.latency_ms} ms</span> : null}
    </td>
  );
}

export function ConformanceTable({ report }: { report: ConformanceReport }) {
  const columns = report.interfaces.filter((i) => i.probed);
  const unprobed = report.interfaces.filter((i) => !i.probed);
  const failures = columns.flatMap((c) => c.cells.filter((x) => x.status === 'failed').map((x) => ({ column: c.id, cell: x })));
  const s = report.summary;
  return (
    <div className="interface-table-wrap" data-testid="conformance" data-passed={report.passed}>
      <table className="table interface-table" data-testid="conformance-table">
        <caption>
          Conformance of {report.alias}: {report.passed ? 'every advertised operation answered as A2A says' : `${s.failed ?? 0} check(s) failed`}{' '}
          <span className="muted">
            ({s.ok ?? 0} ok, {s.failed ?? 0} failed, {s.skipped ?? 0} skipped, {s.not_advertised ?? 0} not advertised
            {(s['not_in_0.3'] ?? 0) > 0 ? `, ${s['not_in_0.3']} not in 0.3` : ''})
          </span>
        </caption>
        <thead>
          <tr>
            <th>Operation</th>
            {columns.map((c) => (
              <th key={c.id} title={c.url} data-testid="conformance-column">
                {c.id}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {report.operations.map((op) => (
            <tr key={op} data-testid="conformance-row" data-operation={op}>
              <td className="mono">{op}</td>
              {columns.map((c) => (
                <CellView key={c.id} cell={c.cells.find((x) => x.operation === op)} />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {failures.length ? (
        <ul className="conformance-failures" data-testid="conformance-failures">
          {failures.map(({ column, cell }) => (
            <li key={`${column} ${cell.operation}`}>
              <strong>
                {column} {cell.operation}
              </strong>
              : <span className="mono">{cell.code}</span> <span className="muted">{cell.message}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {unprobed.length ? (
        <p className="muted">Not probed (missive does not speak the binding): {unprobed.map((i) => `${i.protocol_binding} ${i.url}`).join(', ')}</p>
      ) : null}
      {!report.include_send ? <p className="muted">Sends are skipped: the probe is read-only unless sends are included.</p> : null}
    </div>
  );
}
