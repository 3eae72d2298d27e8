/**
 * How a collective ended, as the core reports it: the status, the bcast's failure policy, execution and counts, the
 * barrier's quorum, and a round's own error (e.g. its reduce failed). It shows what the core ran with, not what the
 * form asked for.
 */
import { ErrorBox } from './common';
import type { Outcome } from './collective-members';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import '../collectives.css';

type FanOut = ChannelOutput<'collectives.bcast'>;
type Barrier = ChannelOutput<'collectives.barrier'>;

const POLICY_LABEL = { stop: 'fail-fast', continue: 'continue' } as const;

const fanOutLine = (r: FanOut) =>
  `bcast ${r.status} · failure policy ${POLICY_LABEL[r.failure_policy]} · ${r.execution} · ${r.counts.succeeded} succeeded, ${r.counts.failed} failed, ${r.counts.timeout} timed out, ${r.counts.skipped} skipped · ${r.elapsed_ms} ms`;

const barrierLine = (r: Barrier) => `barrier ${r.status} · quorum ${r.quorum.required} of ${r.quorum.members} · ${r.quorum.satisfied} satisfied`;

export function CollectiveSummary({ outcome: out }: { outcome: Outcome }) {
  const status = out.op === 'round' || out.op === 'bcast' || out.op === 'barrier' ? out.result.status : null;
  const fan = out.op === 'round' ? out.result.bcast : out.op === 'bcast' ? out.result : null;
  const waited = out.op === 'round' ? out.result.barrier : out.op === 'barrier' ? out.result : null;
  return (
    <div className="collective-summary-block">
      {status ? <p data-testid="collective-status">status: {status}</p> : null}
      {fan ? (
        <p className="collective-summary muted" data-testid="collective-bcast">
          {fanOutLine(fan)}
        </p>
      ) : null}
      {waited ? (
        <p className="collective-summary muted" data-testid="collective-quorum">
          {barrierLine(waited)}
        </p>
      ) : null}
      {out.op === 'round' ? <ErrorBox error={out.result.error} /> : null}
    </div>
  );
}
