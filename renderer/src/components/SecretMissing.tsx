/**
 * The Agents list's mark for an agent whose auth ref has no secret available in this session (a keyring ref never
 * given one, a secret kept in memory that a restart dropped, an env var the app was started without), with "Set
 * secret" in place for a ref whose secret missive keeps: typed here, sent once to the main process, never shown.
 */
import { useState } from 'react';
import { call } from '../api';
import { useLoad } from '../hooks';
import { SetSecretInline } from './ErrorAction';
import type { ChannelOutput } from '../../../shared/ipc/contract';

type AuthRef = ChannelOutput<'auth.list'>['auth_refs'][number];

export interface SecretGaps {
  /** The refs with no secret available now, by name. */
  missing: Map<string, AuthRef>;
  /** Whether a secret set now lasts until the app quits only (no OS keyring). */
  sessionOnly: boolean;
  reload: () => void;
}

/** Whether a ref's credential is missing now: its secret (a device-code login needs none), on this host. */
const lacksSecret = (r: AuthRef) => r.present !== true && r.flow.type !== 'oauth2_device_code';

/** The auth refs without a secret, read again whenever `key` changes (the agents list was reloaded). */
export function useSecretGaps(key: unknown): SecretGaps {
  const auth = useLoad(() => call('auth.list', {}), [key]);
  const missing = new Map((auth.data?.auth_refs ?? []).filter(lacksSecret).map((r) => [r.name, r] as const));
  return { missing, sessionOnly: auth.data?.keyring.session_only ?? false, reload: () => void auth.run() };
}

export function SecretMissing({ alias, authRef, gaps }: { alias: string; authRef: string | null | undefined; gaps: SecretGaps }) {
  const [open, setOpen] = useState(false);
  const ref = authRef ? gaps.missing.get(authRef) : undefined;
  if (!ref) return null;
  const settable = ref.kind === 'keyring' && !(ref.this_host && !ref.this_host.bound);
  const why =
    ref.this_host && !ref.this_host.bound
      ? 'not bound on this host'
      : ref.kind === 'env'
        ? `$${ref.env} is not set`
        : gaps.sessionOnly
          ? 'no secret in this session'
          : 'no secret in the keyring';
  return (
    <div className="secret-missing small-text" data-testid="secret-missing" data-ref={ref.name}>
      <span className="health warn">
        <span aria-hidden="true">⚠ </span>
        {why}
      </span>
      {settable ? (
        open ? (
          <SetSecretInline authRef={ref.name} onSaved={gaps.reload} />
        ) : (
          <button type="button" className="small secondary" onClick={() => setOpen(true)} aria-label={`Set secret of ${ref.name} for ${alias}`}>
            Set secret
          </button>
        )
      ) : null}
    </div>
  );
}
