/** The card's warnings from `agents.inspect` (core/agents/card-warnings.ts): what is wrong while the card stays usable. */
import type { ChannelOutput } from '../../../shared/ipc/contract';
import '../agents.css';

type Warning = ChannelOutput<'agents.inspect'>['card_warnings'][number];

export function CardWarnings({ warnings }: { warnings: Warning[] }) {
  const real = warnings.filter((w) => w.severity === 'warning');
  const notes = warnings.filter((w) => w.severity === 'info');
  if (!warnings.length) {
    return (
      <p className="muted small-text" data-testid="card-warnings" data-count={0}>
        No card warnings.
      </p>
    );
  }
  return (
    <div className="card-warnings" data-testid="card-warnings" data-count={real.length}>
      <strong>
        {real.length ? `${real.length} card warning${real.length === 1 ? '' : 's'}` : 'No card warnings'}
        {notes.length ? `, ${notes.length} note${notes.length === 1 ? '' : 's'}` : ''}
      </strong>{' '}
      <span className="muted small-text">the card stays usable</span>
      <ul>
        {[...real, ...notes].map((w, i) => (
          <li key={`${w.code}-${w.field ?? ''}-${i}`} className={`card-warning card-warning-${w.severity}`} data-testid="card-warning" data-code={w.code}>
            <span aria-hidden="true">{w.severity === 'warning' ? '⚠' : 'ℹ'}</span> <span className="sr-only">{w.severity}:</span> <code>{w.code}</code>
            {w.field ? <span className="muted"> · {w.field}</span> : null} — {w.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
