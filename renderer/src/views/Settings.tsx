import { useState } from 'react';
import { call } from '../api';
import { useAction, useLoad } from '../hooks';
import { ErrorBox, Field } from '../components/common';

export function SettingsView({ theme, setTheme }: { theme: string; setTheme: (t: 'dark' | 'light') => void }) {
  const info = useLoad(() => call('app.info', {}), []);
  const auth = useLoad(() => call('auth.list', {}), []);
  const webhook = useLoad(() => call('webhook.status', {}), []);
  const [port, setPort] = useState('0');
  const [ref, setRef] = useState('');
  const [secret, setSecret] = useState('');
  const start = useAction(async () => (await call('webhook.start', { port: Number(port) || 0 }), webhook.run()));
  const stop = useAction(async () => (await call('webhook.stop', {}), webhook.run()));
  const save = useAction(async () => {
    await call('auth.setSecret', { name: ref, secret });
    setSecret('');
    await auth.run();
  });
  const w = webhook.data as any;
  return (
    <section className="view" data-testid="view-settings">
      <h2>Settings</h2>
      <h3>Profile</h3>
      {info.data ? (
        <dl className="kv" data-testid="app-info">
          <dt>Profile</dt>
          <dd>
            {info.data.profile} <span className="muted">(of {info.data.profiles.join(', ') || info.data.profile}; the app uses the default profile of the config; the CLI takes --profile)</span>
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
      <p data-testid="webhook-status">{w?.listening ? `listening on ${w.url} · ${w.accepted} accepted · ${w.rejected} rejected` : 'stopped'}</p>
      <div className="row">
        <Field label="Port (0 = any)">
          <input name="webhook-port" value={port} onChange={(e) => setPort(e.target.value)} />
        </Field>
        <button onClick={() => void start.run()}>Start</button>
        <button onClick={() => void stop.run()}>Stop</button>
      </div>
      <ErrorBox error={start.error ?? stop.error} />
      <h3>Auth refs</h3>
      <p className="muted">Keyring: {(auth.data as any)?.keyring?.available ? `${(auth.data as any).keyring.backend} available` : `unavailable (${(auth.data as any)?.keyring?.reason ?? '…'})`}</p>
      <ul>
        {((auth.data as any)?.auth_refs ?? []).map((r: any) => (
          <li key={r.name}>
            {r.name} · {r.kind} · {r.present ? 'secret present' : 'no secret'}
          </li>
        ))}
      </ul>
      <div className="row">
        <Field label="Keyring auth ref">
          <input name="auth-ref" value={ref} onChange={(e) => setRef(e.target.value)} />
        </Field>
        <Field label="Secret (stored in the OS keyring, never shown again)">
          <input name="auth-secret" type="password" autoComplete="off" value={secret} onChange={(e) => setSecret(e.target.value)} />
        </Field>
        <button onClick={() => void save.run()} disabled={!ref || !secret}>
          Save to keyring
        </button>
      </div>
      <ErrorBox error={save.error ?? auth.error} />
    </section>
  );
}
