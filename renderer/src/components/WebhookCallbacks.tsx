/**
 * The push callbacks the journal holds (`webhook.callbacks`: any receiver of this profile, newest first): when each
 * arrived, its task (a link to Tasks), the state it carried (or why it was refused), and its body on request, as
 * journaled and redacted (a callback's headers, and so its token, are never stored). New callbacks (`events.appended`)
 * reload the list while it is shown.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { call, subscribe } from '../api';
import { useLoad } from '../hooks';
import { ErrorBox, stateClass } from './common';
import { IdLink } from './IdLink';
import { Time } from './Time';
import { useInterval } from './timers';
import { useViewActive } from '../store';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import '../webhook.css';

/** How many callbacks the panel lists. */
const SHOWN = 50;
/** How often a list made stale by new callbacks is read again while shown. */
const RELOAD_MS = 1000;
const CALLBACK_TYPES = /^a2a\.push\.(task|message|status_update|artifact_update|rejected)$/;

type Callback = ChannelOutput<'webhook.callbacks'>['callbacks'][number];

const VARIANT_LABEL: Record<NonNullable<Callback['variant']>, string> = {
  task: 'task',
  message: 'message',
  statusUpdate: 'status update',
  artifactUpdate: 'artifact update',
};

export function WebhookCallbacks() {
  const list = useLoad(() => call('webhook.callbacks', { limit: SHOWN }), []);
  const stale = useRef(false);
  useEffect(
    () =>
      subscribe('events.appended', (batch) => {
        if (batch.events.some((e) => CALLBACK_TYPES.test(e.type))) stale.current = true;
      }),
    [],
  );
  useInterval(useViewActive(), RELOAD_MS, () => {
    if (!stale.current) return;
    stale.current = false;
    void list.run();
  });
  const callbacks = list.data?.callbacks ?? [];
  return (
    <div className="webhook-callbacks" data-testid="webhook-callbacks">
      <h4>Received callbacks</h4>
      <ErrorBox error={list.error} />
      {list.data && callbacks.length === 0 ? (
        <p className="muted small-text">
          None yet. Give an agent this receiver’s URL as a send’s push URL (Compose, More options) and its callbacks show here.
        </p>
      ) : null}
      {callbacks.length ? (
        <table className="table callbacks-table">
          <thead>
            <tr>
              <th>Received</th>
              <th>Task</th>
              <th>State</th>
              <th>Body</th>
            </tr>
          </thead>
          {callbacks.map((c) => (
            <CallbackRow key={c.sequence} callback={c} />
          ))}
        </table>
      ) : null}
      {callbacks.length >= SHOWN ? <p className="muted small-text">The newest {SHOWN}; the Events view has them all (type a2a.push.*).</p> : null}
    </div>
  );
}

function CallbackRow({ callback: c }: { callback: Callback }) {
  const [open, setOpen] = useState(false);
  const panel = useId();
  const refused = c.outcome === 'rejected';
  const what = refused ? `refused (HTTP ${c.status ?? '?'})` : (c.state ?? (c.variant ? VARIANT_LABEL[c.variant] : 'accepted'));
  const label = `${open ? 'Hide' : 'Show'} body of the callback ${c.task_id ? `for task ${c.task_id}` : `#${c.sequence}`}`;
  // One body per callback: its row, and its body's row once shown.
  return (
    <tbody data-testid="webhook-callback" data-state={c.state ?? ''} data-outcome={c.outcome}>
      <tr>
        <td>
          <Time at={c.at} />
        </td>
        <td>{c.task_id ? <IdLink kind="task" id={c.task_id} /> : <span className="muted">none</span>}</td>
        <td className={refused ? 'member-status-failed' : stateClass(c.state)}>
          {what}
          {c.agent ? <span className="muted"> · {c.agent}</span> : null}
        </td>
        <td>
          <button type="button" className="small secondary" aria-expanded={open} aria-controls={panel} aria-label={label} onClick={() => setOpen(!open)}>
            {open ? 'Hide body' : 'Show body'}
          </button>
        </td>
      </tr>
      {open ? (
        <tr className="callback-body-row">
          <td colSpan={4} id={panel}>
            {/* Focusable: a long body scrolls, and the keyboard reaches it. */}
            <pre className="answer" data-testid="webhook-callback-body" tabIndex={0} role="region" aria-label={`Body of the callback #${c.sequence}`}>
              {refused ? (c.reason ?? 'refused') : JSON.stringify(c.body, null, 2)}
            </pre>
          </td>
        </tr>
      ) : null}
    </tbody>
  );
}
