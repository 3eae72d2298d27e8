/**
 * The Settings view's login panel: each auth ref's flow and token state (`auth.status`: cached?, expires in; never
 * the token), with Log in / Log out for OAuth2 refs. A device-code login shows the verification URL and the code to
 * enter (the `auth.deviceCode` event) until the login ends.
 */
import { useEffect, useState } from 'react';
import type { ChannelOutput, EventPayload } from '../../../shared/ipc/contract';
import { call, subscribe } from '../api';
import { useAction, useLoad } from '../hooks';
import { ErrorBox } from './common';

type RefStatus = ChannelOutput<'auth.status'>['auth_refs'][number];

const tokenText = (s: RefStatus) => {
  const t = s.token_status;
  if (!t) return s.secret_present === null ? 'keyring unavailable' : s.secret_present ? 'secret present' : 'no secret';
  if (!t.cached) return 'not logged in';
  if (!t.fresh) return t.refreshable ? 'token expired (renewed on the next call)' : 'token expired';
  return t.expires_in === null ? 'logged in' : `logged in · token expires in ${t.expires_in} s`;
};

export function AuthLogin({ onChange }: { onChange?: () => void }) {
  const status = useLoad(() => call('auth.status', {}), []);
  const [prompt, setPrompt] = useState<EventPayload<'auth.deviceCode'> | null>(null);
  useEffect(() => subscribe('auth.deviceCode', (p) => setPrompt(p)), []);
  const after = async () => {
    setPrompt(null);
    await status.run();
    onChange?.();
  };
  const login = useAction(async (target: string) => {
    try {
      return await call('auth.login', { target });
    } finally {
      await after();
    }
  });
  const logout = useAction(async (target: string) => {
    try {
      return await call('auth.logout', { target });
    } finally {
      await after();
    }
  });
  const refs = status.data?.auth_refs ?? [];
  return (
    <div data-testid="auth-login">
      <ul>
        {refs.map((r) => (
          <li key={r.name} data-testid={`auth-status-${r.name}`}>
            {r.name} · {r.flow} · {tokenText(r)}{' '}
            {r.token_status ? (
              <>
                <button type="button" onClick={() => void login.run(r.name)} disabled={login.busy || logout.busy}>
                  {login.busy ? 'Logging in…' : 'Log in'}
                </button>{' '}
                <button type="button" onClick={() => void logout.run(r.name)} disabled={login.busy || logout.busy || !r.token_status.cached}>
                  Log out
                </button>
              </>
            ) : null}
          </li>
        ))}
      </ul>
      {prompt && login.busy ? (
        <p role="status" data-testid="device-code">
          To log in as {prompt.auth_ref}, open{' '}
          <a href={prompt.verification_uri_complete ?? prompt.verification_uri} target="_blank" rel="noreferrer">
            {prompt.verification_uri}
          </a>{' '}
          and enter the code <strong className="mono">{prompt.user_code}</strong> (expires in {Math.max(1, Math.round(prompt.expires_in / 60))} min).
        </p>
      ) : null}
      <ErrorBox error={login.error ?? logout.error ?? status.error} />
    </div>
  );
}
