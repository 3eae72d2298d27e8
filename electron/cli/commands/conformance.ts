/**
 * `missive conformance <agent> [--include-send]`: the read-only conformance probe (core/conformance/probe.ts) as a
 * table of operations × the card's interfaces, with each failure spelled out. Exits 0 when every advertised cell is
 * ok, else 76 (protocol: the agent does not conform), with the table still on stdout.
 */
import type { Command } from 'commander';
import { MissiveError } from '../../../shared/errors.js';
import { runConformance, type ConformanceReport, type ProbeCell } from '../../core/conformance/probe.js';
import type { Action } from '../command-context.js';
import { table } from '../human.js';

const LABEL: Record<ProbeCell['status'], string> = {
  ok: 'ok',
  failed: 'FAIL',
  skipped: 'skipped',
  not_advertised: 'not advertised',
  'not_in_0.3': 'not in 0.3',
};

/** The short reason of a stable code (`missive::transport::http_status` → `http_status`). */
const reason = (code: string | null) => (code ? code.split('::').pop()! : '');

function cellText(c: ProbeCell | undefined): string {
  if (!c) return '-';
  if (c.status === 'failed') return `FAIL ${reason(c.code)}${c.latency_ms === null ? '' : ` ${c.latency_ms} ms`}`;
  return c.latency_ms === null ? LABEL[c.status] : `${LABEL[c.status]} ${c.latency_ms} ms`;
}

export function conformanceText(r: ConformanceReport): string {
  const columns = r.interfaces.filter((i) => i.probed);
  const lines = [`Conformance of "${r.alias}": card "${r.card.name}" (A2A ${r.card.format} card, ${r.card.status} in ${r.card.latency_ms} ms)`, ''];
  lines.push(
    table(
      ['operation', ...columns.map((c) => c.id)],
      r.operations.map((op) => [op, ...columns.map((c) => cellText(c.cells.find((x) => x.operation === op)))]),
    ),
  );
  lines.push(
    '',
    'Interfaces',
    table(
      ['column', 'binding', 'version', 'url'],
      r.interfaces.map((i) => [i.probed ? i.id : `${i.id} (not probed: missive does not speak it)`, i.protocol_binding, i.protocol_version, i.url]),
    ),
  );
  const failures = columns.flatMap((c) =>
    c.cells.filter((x) => x.status === 'failed').map((x) => `  ${c.id} ${x.operation}: ${x.code} ${x.message ?? ''}`.trimEnd()),
  );
  if (failures.length) lines.push('', 'Failures', ...failures);
  const s = r.summary;
  lines.push(
    '',
    `${s.ok} ok, ${s.failed} failed, ${s.skipped} skipped, ${s.not_advertised} not advertised, ${s['not_in_0.3']} not in 0.3${r.include_send ? '' : ' (sends skipped: --include-send probes them)'}`,
  );
  return lines.join('\n');
}

/** The error reported (stderr) when the probe found failing cells. */
function failedError(r: ConformanceReport): MissiveError {
  const failed = r.interfaces.flatMap((i) => i.cells.filter((c) => c.status === 'failed').map((c) => `${i.id} ${c.operation}`));
  const shown = failed.slice(0, 5).join(', ') + (failed.length > 5 ? `, and ${failed.length - 5} more` : '');
  return new MissiveError('protocol', 'conformance_failed', `"${r.alias}" failed ${failed.length} conformance check(s): ${shown}`, {
    help: `The table names each failing operation and interface with its error code. Re-run one with: missive agent inspect ${r.alias} --refresh`,
  });
}

export function registerConformanceCommand(program: Command, action: Action): void {
  program
    .command('conformance <agent>')
    .description('probe every operation the Agent Card advertises on every interface it lists (read-only)')
    .option('--include-send', 'also send one short text message (SendMessage and SendStreamingMessage) per interface')
    .action(
      action(async ({ core, out }, agent: string, opts: { includeSend?: boolean }) => {
        const alias = await (await import('../../core/agents/ad-hoc.js')).resolveAgentTarget(core, agent);
        const report = await runConformance(core, alias, { includeSend: opts.includeSend === true });
        return out.outcome('conformance', report, conformanceText, failedError);
      }),
    );
}
