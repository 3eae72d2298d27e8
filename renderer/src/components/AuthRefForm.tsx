/**
 * Create or edit an auth ref: the flows `missive auth add` takes (bearer, a custom header, Basic, an API key in a
 * header, query or cookie, OAuth2 client credentials or device code), where the secret lives (the OS keyring, or an
 * environment variable of the app), and, for a keyring ref, the secret itself: it goes to the main process with
 * `auth.setSecret` and is never read back; the field is emptied once it is sent.
 */
import { useState } from 'react';
import { call } from '../api';
import { useAction } from '../hooks';
import { ErrorBox, Field, jsonAt, stringOf } from './common';
import type { ChannelInput, ChannelOutput } from '../../../shared/ipc/contract';
import '../agents.css';

export type AuthRef = ChannelOutput<'auth.list'>['auth_refs'][number];

/** The choices of the form; `bearer` and `custom` are both the `header` flow. */
const KINDS = [
  ['bearer', 'Bearer token'],
  ['custom', 'Custom header'],
  ['basic', 'Basic (user + password)'],
  ['api_key', 'API key'],
  ['oauth2_client_credentials', 'OAuth2 client credentials'],
  ['oauth2_device_code', 'OAuth2 device code'],
] as const;
export type Kind = (typeof KINDS)[number][0];

function kindOf(ref: AuthRef | undefined): Kind {
  if (!ref) return 'bearer';
  if (ref.flow.type !== 'header') return ref.flow.type;
  return ref.header.toLowerCase() === 'authorization' && ref.scheme.toLowerCase() === 'bearer' ? 'bearer' : 'custom';
}

const flowText = (ref: AuthRef | undefined, key: string) => stringOf(jsonAt(ref?.flow, key)) ?? '';

/** A new ref's first values, e.g. from the card scheme it is made for (AuthNeeded's one-click add). */
export interface AuthRefPreset {
  name?: string;
  kind?: Kind;
  place?: 'header' | 'query' | 'cookie';
  keyName?: string;
  tokenUrl?: string;
  issuer?: string;
  deviceUrl?: string;
}

export function AuthRefForm({
  existing,
  preset = {},
  sessionOnly,
  onSaved,
  onCancel,
}: {
  existing?: AuthRef;
  preset?: AuthRefPreset;
  sessionOnly: boolean;
  onSaved: (name: string) => void;
  onCancel?: () => void;
}) {
  const editing = !!existing;
  const [name, setName] = useState(existing?.name ?? preset.name ?? '');
  const [kind, setKind] = useState<Kind>(existing ? kindOf(existing) : (preset.kind ?? 'bearer'));
  const [storage, setStorage] = useState<'keyring' | 'env'>(existing?.kind ?? 'keyring');
  const [env, setEnv] = useState(existing?.env ?? '');
  const [service, setService] = useState(existing?.keyring_service ?? 'missive');
  const [account, setAccount] = useState(existing?.keyring_account ?? '');
  const [header, setHeader] = useState(existing && kindOf(existing) === 'custom' ? existing.header : 'X-Api-Token');
  const [scheme, setScheme] = useState(existing && kindOf(existing) === 'custom' ? existing.scheme : 'none');
  const [username, setUsername] = useState(flowText(existing, 'username'));
  const [place, setPlace] = useState<'header' | 'query' | 'cookie'>((flowText(existing, 'in') || preset.place || 'header') as 'header' | 'query' | 'cookie');
  const [keyName, setKeyName] = useState(flowText(existing, 'name') || preset.keyName || 'X-API-Key');
  const [tokenUrl, setTokenUrl] = useState(flowText(existing, 'token_url') || (preset.tokenUrl ?? ''));
  const [issuer, setIssuer] = useState(flowText(existing, 'issuer') || (preset.issuer ?? ''));
  const [clientId, setClientId] = useState(flowText(existing, 'client_id'));
  const [scopes, setScopes] = useState(((jsonAt(existing?.flow, 'scopes') as string[] | undefined) ?? []).join(' '));
  const [audience, setAudience] = useState(flowText(existing, 'audience'));
  const [deviceUrl, setDeviceUrl] = useState(flowText(existing, 'device_authorization_url') || (preset.deviceUrl ?? ''));
  const [secret, setSecret] = useState('');
  const oauth = kind === 'oauth2_client_credentials' || kind === 'oauth2_device_code';

  const input = (): ChannelInput<'auth.add'> => {
    const base: ChannelInput<'auth.add'> = storage === 'env' ? { name, env } : { name, keyringService: service, keyringAccount: account || name };
    const opt = (v: string) => v.trim() || undefined;
    switch (kind) {
      case 'bearer':
        return { ...base, flow: 'header', header: 'Authorization', scheme: 'Bearer' };
      case 'custom':
        return { ...base, flow: 'header', header, scheme: scheme.trim() || 'none' };
      case 'basic':
        return { ...base, flow: 'basic', username };
      case 'api_key':
        return { ...base, flow: 'api_key', in: place, keyName };
      default:
        return {
          ...base,
          flow: kind,
          tokenUrl: opt(tokenUrl),
          issuer: opt(issuer),
          clientId: opt(clientId),
          scopes: scopes.split(/\s+/).filter(Boolean),
          ...(kind === 'oauth2_client_credentials' ? { audience: opt(audience) } : { deviceAuthorizationUrl: opt(deviceUrl) }),
        };
    }
  };

  const save = useAction(async () => {
    const ref = await call(editing ? 'auth.update' : 'auth.add', input());
    // The secret leaves the page here, once; the field is cleared whatever the answer.
    const typed = secret;
    setSecret('');
    if (typed && storage === 'keyring') await call('auth.setSecret', { name: ref.name, secret: typed });
    onSaved(ref.name);
    return ref;
  });

  return (
    <form
      className="card auth-ref-form"
      data-testid="auth-ref-form"
      aria-label={editing ? `Edit auth ref ${existing.name}` : 'New auth ref'}
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <div className="form-grid">
        <Field label="Auth ref name">
          <input name="auth-ref-name" value={name} onChange={(e) => setName(e.target.value)} disabled={editing} placeholder="e.g. prod-planner" required />
        </Field>
        <Field label="Flow">
          <select name="auth-ref-flow" value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
            {KINDS.map(([id, label]) => (
              <option key={id} value={id}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        {kind === 'custom' ? (
          <>
            <Field label="Header name">
              <input name="auth-ref-header" value={header} onChange={(e) => setHeader(e.target.value)} />
            </Field>
            <Field label="Scheme before the value (none: the bare secret)">
              <input name="auth-ref-scheme" value={scheme} onChange={(e) => setScheme(e.target.value)} />
            </Field>
          </>
        ) : null}
        {kind === 'basic' ? (
          <Field label="User name (the secret is the password)">
            <input name="auth-ref-username" value={username} onChange={(e) => setUsername(e.target.value)} />
          </Field>
        ) : null}
        {kind === 'api_key' ? (
          <>
            <Field label="Key goes in">
              <select name="auth-ref-in" value={place} onChange={(e) => setPlace(e.target.value as 'header' | 'query' | 'cookie')}>
                <option value="header">a header</option>
                <option value="query">the URL query</option>
                <option value="cookie">a cookie</option>
              </select>
            </Field>
            <Field label="Header, parameter or cookie name">
              <input name="auth-ref-key-name" value={keyName} onChange={(e) => setKeyName(e.target.value)} />
            </Field>
          </>
        ) : null}
        {oauth ? (
          <>
            <Field label="Client id">
              <input name="auth-ref-client-id" value={clientId} onChange={(e) => setClientId(e.target.value)} />
            </Field>
            <Field label="Token URL (or give the issuer)">
              <input name="auth-ref-token-url" value={tokenUrl} onChange={(e) => setTokenUrl(e.target.value)} placeholder="https://login.example.com/token" />
            </Field>
            <Field label="OpenID Connect issuer">
              <input name="auth-ref-issuer" value={issuer} onChange={(e) => setIssuer(e.target.value)} placeholder="https://login.example.com" />
            </Field>
            <Field label="Scopes (space-separated)">
              <input name="auth-ref-scopes" value={scopes} onChange={(e) => setScopes(e.target.value)} />
            </Field>
            {kind === 'oauth2_client_credentials' ? (
              <Field label="Audience">
                <input name="auth-ref-audience" value={audience} onChange={(e) => setAudience(e.target.value)} />
              </Field>
            ) : (
              <Field label="Device authorization URL">
                <input name="auth-ref-device-url" value={deviceUrl} onChange={(e) => setDeviceUrl(e.target.value)} />
              </Field>
            )}
          </>
        ) : null}
        <Field label="The secret lives in">
          <select name="auth-ref-storage" value={storage} onChange={(e) => setStorage(e.target.value as 'keyring' | 'env')}>
            <option value="keyring">{sessionOnly ? 'missive (this session only: no keyring)' : 'the OS keyring'}</option>
            <option value="env">an environment variable of the app</option>
          </select>
        </Field>
        {storage === 'env' ? (
          <Field label="Environment variable">
            <input name="auth-ref-env" value={env} onChange={(e) => setEnv(e.target.value)} placeholder="e.g. PROD_A2A_TOKEN" />
          </Field>
        ) : (
          <>
            <Field label="Keyring service">
              <input name="auth-ref-service" value={service} onChange={(e) => setService(e.target.value)} />
            </Field>
            <Field label="Keyring account (default: the name)">
              <input name="auth-ref-account" value={account} onChange={(e) => setAccount(e.target.value)} placeholder={name || 'the auth ref name'} />
            </Field>
            <Field label={`${kind === 'basic' ? 'Password' : oauth ? 'Client secret' : 'Secret'}${editing ? ' (leave empty to keep the stored one)' : ''}`}>
              <input name="auth-ref-secret" type="password" autoComplete="off" value={secret} onChange={(e) => setSecret(e.target.value)} />
            </Field>
          </>
        )}
      </div>
      <p className="muted small-text" data-testid="secret-note">
        {storage === 'env'
          ? 'The app reads the variable when it calls the agent; nothing is stored.'
          : sessionOnly
            ? 'No OS keyring: the secret is kept in memory for this session only and is gone when missive quits. It is never shown again.'
            : 'The secret goes to the OS keyring and is never shown again.'}
      </p>
      <div className="row">
        <button type="submit" disabled={save.busy || !name} data-testid="auth-ref-save">
          {editing ? 'Save auth ref' : 'Create auth ref'}
        </button>
        {onCancel ? (
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
      <ErrorBox error={save.error} />
    </form>
  );
}
