/**
 * A refused card as the agent serves it (`agents.rawCard`): every issue missive finds, and the raw JSON (or text).
 * Shown under an invalid_card error of inspect or register, so the operator sees what is wrong and where.
 */
import { useEffect } from 'react';
import { call } from '../api';
import { useAction } from '../hooks';
import { ErrorBox, JsonTree } from './common';
import '../agents.css';

export type RawCardTarget = { alias: string } | { url: string };

/** The error codes of a card that was fetched but not read. */
export const REFUSED_CARD_CODES = ['missive::protocol::invalid_card', 'missive::protocol::invalid_card_json'];

export function RawCard({ target }: { target: RawCardTarget }) {
  const raw = useAction(() => call('agents.rawCard', target));
  const key = 'alias' in target ? `a:${target.alias}` : `u:${target.url}`;
  useEffect(() => {
    raw.setData(null);
    void raw.run();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- refetch when the target changes, not on each render's new target object; run keeps one identity
  }, [key]);
  const data = raw.data;
  return (
    <div className="card raw-card" data-testid="raw-card">
      <h3>The refused card</h3>
      <ErrorBox error={raw.error} />
      {data ? (
        <>
          <p className="muted small-text">
            from <span className="mono">{data.url}</span> (HTTP {data.http_status})
          </p>
          <strong>
            {data.issues.length ? `${data.issues.length} issue${data.issues.length === 1 ? '' : 's'} missive refuses it for` : 'missive reads this card now'}
          </strong>
          <ul data-testid="raw-card-issues">
            {data.issues.map((issue, i) => (
              <li key={i} data-testid="raw-card-issue">
                {issue}
              </li>
            ))}
          </ul>
          {data.is_json ? (
            <pre className="raw-card-json mono" data-testid="raw-card-json" tabIndex={0}>
              {JSON.stringify(data.raw_card, null, 2)}
            </pre>
          ) : (
            <pre className="raw-card-json mono" data-testid="raw-card-json" tabIndex={0}>
              {String(data.raw_card)}
            </pre>
          )}
          {data.is_json ? (
            <details className="raw-json">
              <summary>As a tree</summary>
              <JsonTree value={data.raw_card} label="card" />
            </details>
          ) : null}
        </>
      ) : raw.busy ? (
        <p className="muted">Fetching the card as served…</p>
      ) : null}
    </div>
  );
}
