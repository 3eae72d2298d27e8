/**
 * The notice bar: the core's warnings (`app.notice`: credentials sent over plain http, a result without a kind…) and
 * what window actions report, each with a Dismiss button. The same message is shown once until dismissed.
 */
import { useEffect } from 'react';
import { subscribe } from '../api';
import { useStore } from '../store';

export function Notices() {
  const { notices, notify, dismissNotice } = useStore();
  useEffect(() => subscribe('app.notice', (notice) => notify(notice.level, notice.message)), [notify]);
  if (notices.length === 0) return null;
  return (
    <div className="notices" role="region" aria-label="notices" data-testid="notices">
      {notices.map((n) => (
        <div key={n.id} className={`notice notice-${n.level}`} role={n.level === 'error' ? 'alert' : 'status'} data-testid="notice">
          <span className="notice-level">{n.level}</span>
          <span className="notice-message">{n.message}</span>
          <button type="button" className="small secondary" onClick={() => dismissNotice(n.id)} aria-label={`Dismiss notice: ${n.message.slice(0, 60)}`}>
            Dismiss
          </button>
        </div>
      ))}
    </div>
  );
}
