/**
 * The action an error's window help names (shared/errors.ts `GuiAction`), in place: "Set secret" asks for the auth
 * ref's secret here and sends it to the main process once (`auth.setSecret`; the field is emptied, nothing comes
 * back); "Log in" runs the ref's login (`auth.login`). The user then tries again.
 */
import { useState } from 'react';
import { call } from '../api';
import { useAction } from '../hooks';
import type { IpcError } from '../../../shared/ipc/contract';

type GuiAction = NonNullable<IpcError['gui_action']>;

/** A secret typed for one auth ref: stored for this ref, or kept for this session only when there is no keyring. */
export function SetSecretInline({ authRef, onSaved }: { authRef: string; onSaved?: () => void }) {
  const [secret, setSecret] = useState('');
  const save = useAction(async () => {
    const typed = secret;
    setSecret('');
    const result = await call('auth.setSecret', { name: authRef, secret: typed });
    onSaved?.();
    return result;
  });
  if (save.data) {
    return (
      <span className="muted small-text" role="status" data-testid="secret-saved">
        Secret of {authRef} set{save.data.session_only ? ' for this session only' : ''}: try again.
      </span>
    );
  }
  return (
    <form
      className="row inline-secret"
      aria-label={`Secret of ${authRef}`}
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <label className="field">
        <span className="sr-only">Secret of {authRef}</span>
        <input
          name={`inline-secret-${authRef}`}
          type="password"
          autoComplete="off"
          placeholder={`secret of ${authRef}`}
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
        />
      </label>
      <button type="submit" className="small" disabled={!secret || save.busy} data-testid="inline-set-secret">
        Set secret
      </button>
      {save.error ? <span className="error-message">{save.error.message}</span> : null}
    </form>
  );
}

function LogIn({ target }: { target: string }) {
  const login = useAction(() => call('auth.login', { target }));
  return (
    <div className="row">
      <button type="button" className="small" onClick={() => void login.run()} disabled={login.busy} data-testid="error-log-in">
        {login.busy ? 'Logging in…' : `Log in with ${target}`}
      </button>
      {login.data ? (
        <span className="muted small-text" role="status">
          Logged in: try again.
        </span>
      ) : null}
      {login.error ? <span className="error-message">{login.error.message}</span> : null}
    </div>
  );
}

export function ErrorAction({ action }: { action: GuiAction | undefined }) {
  if (!action) return null;
  if (action.kind === 'set-secret') return <SetSecretInline authRef={action.auth_ref} />;
  return <LogIn target={action.target} />;
}
