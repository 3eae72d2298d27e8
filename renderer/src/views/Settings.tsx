/**
 * The Settings view: the profile and its files, the theme, the webhook receiver (its state is always what
 * `webhook.status` says: polled while the view is shown and read again after each start and stop, never guessed),
 * and the auth refs (AuthRefs: create, edit, remove, secrets typed into the main process only, logins).
 */
import { useState } from 'react';
import { call } from '../api';
import { useAction, useLoad } from '../hooks';
import { ErrorBox, Field } from '../components/common';
import { Time } from '../components/Time';
import { AuthRefs } from '../components/AuthRefs';
import { WebhookCallbacks } from '../components/WebhookCallbacks';
import { useInterval } from '../components/timers';
import { useViewActive } from '../store';

/** How often the receiver's state is read while Settings is shown. */
const WEBHOOK_POLL_MS = 1500;

export function SettingsView({ theme, setTheme }: { theme: string; setTheme: (t: 'dark' | 'light') => void }) {
  const info = useLoad(() => call('app.info', {}), []);
  const webhook = useAction(() => call('webhook.status', {}));
  useInterval(useViewActive(), WEBHOOK_POLL_MS, () => void webhook.run());
  const [port, setPort] = useState('0');
  // The state shown after a start or stop, failed or not, is the receiver's own, read again.
  const start = useAction(async () => {
    try {
      return await call('webhook.start', { port: Number(port) || 0 });
    } finally {
      await webhook.run();
    }
  });
  const stop = useAction(async () => {
    try {
      return await call('webhook.stop', {});
    } finally {
      await webhook.run();
    }
  });
  const w = webhook.data;
  const portValid = /^\d{1,5}$/.test(port.trim()) && Number(port) <= 65535;
  return (
    <section className="view" data-testid="view-settings">
      <h2>Settings</h2>
      <h3>Profile</h3>
      {info.data ? (
        <dl className="kv" data-testid="app-info">
          <dt>Profile</dt>
          <dd>
            {info.data.profile}{' '}
            <span className="muted">
              (of {info.data.profiles.join(', ') || info.data.profile}; the app uses the default profile of the config; the CLI takes --profile)
            </span>
          </dd>
          <dt>Config</dt>
          <dd className="mono">{info.data.config ?? 'defaults (no config file)'}</dd>
          <dt>Journal</dt>
          <dd className="mono">{info.data.database}</dd>
          <dt>Version</dt>
          <dd>{info.data.version}</dd>
        </dl>
      ) : null}
      <h3>Theme</h3>
      <div className="row">
        <button onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')}>Switch to {theme === 'dark' ? 'light' : 'dark'} theme</button>
      </div>
      <h3>Webhook receiver</h3>
      <p data-testid="webhook-status" role="status" className={w?.listening ? 'webhook-on' : 'webhook-off'}>
        {w === null ? 'reading the receiver’s state…' : w.listening ? `listening on ${w.url} · ${w.accepted} accepted · ${w.rejected} rejected` : 'stopped'}
      </p>
      {w?.last ? (
        <p className="muted small-text" data-testid="webhook-last">
          last callback: {w.last.event_type} (HTTP {w.last.status}) <Time at={w.last.at} />
        </p>
      ) : null}
      <div className="row">
        <Field label="Port (0 = any free port)">
          <input
            name="webhook-port"
            value={port}
            onChange={(e) => setPort(e.target.value)}
            inputMode="numeric"
            placeholder="e.g. 8787"
            aria-invalid={!portValid}
          />
        </Field>
        <button
          type="button"
          onClick={() => void start.run()}
          disabled={start.busy || stop.busy || w?.listening !== false || !portValid}
          data-testid="webhook-start"
        >
          {start.busy ? 'Starting…' : 'Start'}
        </button>
        <button type="button" onClick={() => void stop.run()} disabled={start.busy || stop.busy || !w?.listening} data-testid="webhook-stop">
          {stop.busy ? 'Stopping…' : 'Stop'}
        </button>
      </div>
      <ErrorBox error={start.error ?? stop.error ?? webhook.error} />
      <WebhookCallbacks />
      <h3>Auth refs</h3>
      <AuthRefs />
    </section>
  );
}
