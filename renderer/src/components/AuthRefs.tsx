/**
 * Settings' auth refs: each ref with its flow, where its secret lives (never the secret), whether one is present and
 * which agents use it; create, edit and remove refs; set or delete a keyring secret. A secret is typed here, sent to
 * the main process once (`auth.setSecret`) and the field emptied; nothing of it ever comes back. Without an OS keyring
 * the app keeps it for this session only, and says so.
 */
import { useState } from 'react';
import { call } from '../api';
import { useAction, useLoad } from '../hooks';
import { ErrorBox, Field } from './common';
import { AuthRefForm, type AuthRef } from './AuthRefForm';
import { AuthLogin } from './AuthLogin';
import '../agents.css';

/** Where the secret is read from; on a shared store, this host's binding (or that there is none, and how to make it). */
const where = (r: AuthRef) => {
  if (r.this_host && !r.this_host.bound) return `not bound on this host: missive auth bind ${r.name} --env VAR`;
  const at = r.kind === 'env' ? `$${r.env}` : `${r.keyring_service}/${r.keyring_account}`;
  return r.this_host?.changes.length ? `${at} (changed on the shared store: ${r.this_host.changes.join('; ')}; bind it again)` : at;
};
const presentText = (r: AuthRef) => (r.present === null ? 'keyring unavailable' : r.present ? 'secret present' : 'no secret');

function SecretRow({ refName, sessionOnly, onSaved }: { refName: string; sessionOnly: boolean; onSaved: () => void }) {
  const [secret, setSecret] = useState('');
  const save = useAction(async () => {
    const typed = secret;
    setSecret('');
    const result = await call('auth.setSecret', { name: refName, secret: typed });
    onSaved();
    return result;
  });
  return (
    <form
      className="row"
      aria-label={`Secret of ${refName}`}
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <Field label={`New secret for ${refName}${sessionOnly ? ' (this session only)' : ''}`}>
        <input name={`secret-${refName}`} type="password" autoComplete="off" value={secret} onChange={(e) => setSecret(e.target.value)} />
      </Field>
      <button type="submit" disabled={!secret || save.busy} data-testid={`set-secret-${refName}`}>
        Store secret
      </button>
      {save.data ? (
        <span className="muted small-text" role="status">
          stored{save.data.session_only ? ' for this session only' : ' in the keyring'}
        </span>
      ) : null}
      <ErrorBox error={save.error} />
    </form>
  );
}

export function AuthRefs() {
  const auth = useLoad(() => call('auth.list', {}), []);
  const [mode, setMode] = useState<{ edit: string } | 'new' | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [secretFor, setSecretFor] = useState<string | null>(null);
  const remove = useAction(async (name: string) => {
    const removed = await call('auth.remove', { name });
    setConfirming(null);
    await auth.run();
    return removed;
  });
  const dropSecret = useAction(async (name: string) => {
    await call('auth.deleteSecret', { name });
    await auth.run();
  });
  const keyring = auth.data?.keyring;
  const sessionOnly = keyring?.session_only ?? false;
  const refs = auth.data?.auth_refs ?? [];
  const editing = mode && mode !== 'new' ? refs.find((r) => r.name === mode.edit) : undefined;
  return (
    <div data-testid="auth-refs">
      {keyring ? (
        <p className={sessionOnly ? 'session-note' : 'muted'} data-testid="keyring-status" role="status">
          {sessionOnly
            ? `Secrets are kept for this session only: ${keyring.session_reason ?? 'no OS keyring'}. Set them again after a restart, or use env-var auth refs.`
            : `Secrets are stored in the OS keyring (${keyring.backend}).`}
        </p>
      ) : null}
      {refs.length ? (
        <table className="table auth-refs-table" data-testid="auth-refs-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Flow</th>
              <th>Secret lives in</th>
              <th>Secret</th>
              <th>Used by</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {refs.map((r) => (
              <tr key={r.name} data-testid="auth-ref-row" data-name={r.name}>
                <td>
                  {r.name}
                  {r.source !== 'local' ? <div className="muted small-text">{r.source === 'config_seed' ? 'from the config file' : r.source}</div> : null}
                </td>
                <td>{r.flow.type}</td>
                <td className="mono">{where(r)}</td>
                <td>{presentText(r)}</td>
                <td>{r.used_by.join(', ') || <span className="muted">no agent</span>}</td>
                <td className="row-actions">
                  <button
                    type="button"
                    className="small secondary"
                    onClick={() => setMode({ edit: r.name })}
                    disabled={r.source === 'config_seed'}
                    aria-label={`Edit auth ref ${r.name}`}
                  >
                    Edit
                  </button>
                  {r.kind === 'keyring' ? (
                    <>
                      <button
                        type="button"
                        className="small secondary"
                        onClick={() => setSecretFor(secretFor === r.name ? null : r.name)}
                        aria-label={`Set secret of ${r.name}`}
                      >
                        Set secret
                      </button>
                      <button
                        type="button"
                        className="small secondary"
                        onClick={() => void dropSecret.run(r.name)}
                        disabled={!r.present || dropSecret.busy}
                        aria-label={`Delete secret of ${r.name}`}
                      >
                        Delete secret
                      </button>
                    </>
                  ) : null}
                  {confirming === r.name ? (
                    <button
                      type="button"
                      className="small danger"
                      onClick={() => void remove.run(r.name)}
                      disabled={remove.busy}
                      aria-label={`Confirm removing auth ref ${r.name}`}
                    >
                      Confirm remove{r.used_by.length ? ` (unlinks ${r.used_by.join(', ')})` : ''}
                    </button>
                  ) : (
                    <button
                      type="button"
                      className="small secondary"
                      onClick={() => setConfirming(r.name)}
                      disabled={r.source === 'config_seed'}
                      aria-label={`Remove auth ref ${r.name}`}
                    >
                      Remove
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">No auth refs yet.</p>
      )}
      {secretFor ? <SecretRow key={secretFor} refName={secretFor} sessionOnly={sessionOnly} onSaved={() => void auth.run()} /> : null}
      <ErrorBox error={remove.error ?? dropSecret.error ?? auth.error} />
      {remove.data?.unlinked_agents.length ? (
        <p className="muted small-text" role="status">
          Removed {remove.data.name}; {remove.data.unlinked_agents.join(', ')} now send no credentials.
        </p>
      ) : null}
      <div className="row">
        <button type="button" onClick={() => setMode(mode === 'new' ? null : 'new')} aria-expanded={mode === 'new'} data-testid="new-auth-ref">
          {mode === 'new' ? 'Close the form' : 'New auth ref'}
        </button>
      </div>
      {mode === 'new' || editing ? (
        <AuthRefForm
          key={editing?.name ?? 'new'}
          existing={editing}
          sessionOnly={sessionOnly}
          onSaved={() => {
            setMode(null);
            void auth.run();
          }}
          onCancel={() => setMode(null)}
        />
      ) : null}
      <h4>Logins</h4>
      <AuthLogin onChange={() => void auth.run()} />
    </div>
  );
}
