/**
 * Register an agent (`agents.add` with `fetchCard`: the card is fetched first; a card that cannot be read registers
 * nothing, and one that cannot be reached can be registered without it) or edit one (`agents.set`: what `missive agent set` changes). Auth: none, an existing auth ref, or a new
 * one made here (AuthRefForm: any flow the CLI supports, with its secret typed into the main process only); trusted
 * origins; mutual TLS file paths; the card-signing keys.
 */
import { useState } from 'react';
import { call } from '../api';
import { useAction, useLoad } from '../hooks';
import { ErrorBox, Field } from './common';
import { AuthRefForm } from './AuthRefForm';
import type { ChannelInput, ChannelOutput, IpcError } from '../../../shared/ipc/contract';
import '../agents.css';

type Agent = ChannelOutput<'agents.list'>['agents'][number];

const NEW_REF = '__new__';
const lines = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
const opt = (text: string) => text.trim() || undefined;

export function AgentForm({
  agent,
  onDone,
  onCancel,
  onAddFailed,
}: {
  agent?: Agent;
  onDone: (alias: string) => void;
  onCancel?: () => void;
  onAddFailed?: (url: string, error: IpcError) => void;
}) {
  const editing = !!agent;
  const auth = useLoad(() => call('auth.list', {}), []);
  const [alias, setAlias] = useState(agent?.alias ?? '');
  const [url, setUrl] = useState('');
  const [authRef, setAuthRef] = useState(agent?.auth_ref ?? '');
  const [trusted, setTrusted] = useState('');
  const [certFile, setCertFile] = useState(agent?.client_tls?.cert_file ?? '');
  const [keyFile, setKeyFile] = useState(agent?.client_tls?.key_file ?? '');
  const [caFile, setCaFile] = useState(agent?.client_tls?.ca_file ?? '');
  const [passphraseRef, setPassphraseRef] = useState(agent?.client_tls?.passphrase_ref ?? '');
  const [jwksUrl, setJwksUrl] = useState(agent?.card_keys?.jwks_url ?? '');
  const [jwksFile, setJwksFile] = useState(agent?.card_keys?.jwks_file ?? '');
  const refs = auth.data?.auth_refs ?? [];
  const sessionOnly = auth.data?.keyring.session_only ?? false;

  const clientTls = () =>
    certFile || keyFile || caFile ? { certFile: opt(certFile), keyFile: opt(keyFile), caFile: opt(caFile), passphraseRef: opt(passphraseRef) } : undefined;
  const cardKeys = () => (jwksUrl || jwksFile ? { jwksUrl: opt(jwksUrl), jwksFile: opt(jwksFile) } : undefined);

  const submit = useAction(async (fetchCard: boolean = true) => {
    if (agent) {
      const tlsChanged =
        certFile !== (agent.client_tls?.cert_file ?? '') ||
        keyFile !== (agent.client_tls?.key_file ?? '') ||
        caFile !== (agent.client_tls?.ca_file ?? '') ||
        passphraseRef !== (agent.client_tls?.passphrase_ref ?? '');
      const keysChanged = jwksUrl !== (agent.card_keys?.jwks_url ?? '') || jwksFile !== (agent.card_keys?.jwks_file ?? '');
      const changes: ChannelInput<'agents.set'> = { alias: agent.alias, authRef: authRef || null };
      if (tlsChanged) changes.clientTls = clientTls() ?? null;
      if (keysChanged) changes.cardKeys = cardKeys() ?? null;
      const saved = await call('agents.set', changes);
      onDone(saved.alias);
      return saved;
    }
    const where = url.trim();
    const isCard = /agent(-card)?\.json(\?.*)?$/i.test(where);
    try {
      const added = await call('agents.add', {
        alias,
        ...(isCard ? { cardUrl: where } : { baseUrl: where }),
        authRef: authRef || undefined,
        trustedOrigins: lines(trusted),
        clientTls: clientTls(),
        cardKeys: cardKeys(),
        fetchCard,
      });
      onDone(added.alias);
      return added;
    } catch (error) {
      const report = (error as { report?: IpcError }).report;
      if (report) onAddFailed?.(where, report);
      throw error;
    }
  });

  return (
    <div className="agent-form" data-testid={editing ? 'agent-edit-form' : 'agent-add-form'}>
      <form
        aria-label={editing ? `Edit agent ${agent.alias}` : 'Register an agent'}
        onSubmit={(e) => {
          e.preventDefault();
          void submit.run();
        }}
      >
        <div className="form-grid">
          {editing ? null : (
            <>
              <Field label="Alias">
                <input name="alias" value={alias} onChange={(e) => setAlias(e.target.value)} placeholder="e.g. planner" required />
              </Field>
              <Field label="Base URL or card URL">
                <input name="baseUrl" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="e.g. https://agent.example.com" required />
              </Field>
            </>
          )}
          <Field label="Authentication">
            <select name="auth-ref" value={authRef} onChange={(e) => setAuthRef(e.target.value)}>
              <option value="">None</option>
              {refs.map((r) => (
                <option key={r.name} value={r.name}>
                  {r.name} ({r.flow.type}
                  {r.present === false ? ', no secret yet' : ''})
                </option>
              ))}
              <option value={NEW_REF}>New auth ref…</option>
            </select>
          </Field>
          {editing ? null : (
            <Field label="Trusted origins (credentials may go there too; one per line)">
              <textarea name="trusted-origins" rows={1} value={trusted} onChange={(e) => setTrusted(e.target.value)} placeholder="https://api.example.com" />
            </Field>
          )}
        </div>
        <details className="agent-form-more">
          <summary>Mutual TLS and card-signing keys</summary>
          <div className="form-grid">
            <Field label="Client certificate (PEM path)">
              <input name="client-cert" value={certFile} onChange={(e) => setCertFile(e.target.value)} />
            </Field>
            <Field label="Client key (PEM path)">
              <input name="client-key" value={keyFile} onChange={(e) => setKeyFile(e.target.value)} />
            </Field>
            <Field label="Server CA bundle (PEM path)">
              <input name="ca-cert" value={caFile} onChange={(e) => setCaFile(e.target.value)} />
            </Field>
            <Field label="Key passphrase auth ref">
              <input name="key-passphrase-ref" value={passphraseRef} onChange={(e) => setPassphraseRef(e.target.value)} />
            </Field>
            <Field label="JWKS URL (card signatures)">
              <input name="jwks-url" value={jwksUrl} onChange={(e) => setJwksUrl(e.target.value)} />
            </Field>
            <Field label="JWKS file">
              <input name="jwks-file" value={jwksFile} onChange={(e) => setJwksFile(e.target.value)} />
            </Field>
          </div>
        </details>
        {authRef === NEW_REF ? null : (
          <div className="row">
            <button type="submit" disabled={submit.busy || (!editing && (!alias || !url))} data-testid={editing ? 'agent-save' : 'agent-register'}>
              {submit.busy ? (editing ? 'Saving…' : 'Fetching the card…') : editing ? 'Save agent' : 'Register (fetches the card)'}
            </button>
            {onCancel ? (
              <button type="button" className="secondary" onClick={onCancel}>
                Cancel
              </button>
            ) : null}
          </div>
        )}
      </form>
      {authRef === NEW_REF ? (
        <AuthRefForm
          sessionOnly={sessionOnly}
          onSaved={(name) => {
            void auth.run().then(() => setAuthRef(name));
          }}
          onCancel={() => setAuthRef(agent?.auth_ref ?? '')}
        />
      ) : null}
      <ErrorBox error={submit.error ?? auth.error} />
      {!editing && submit.error?.category === 'transport' ? (
        <div className="row">
          <button type="button" className="secondary" data-testid="agent-register-offline" disabled={submit.busy} onClick={() => void submit.run(false)}>
            Register without the card (Refresh all fetches it later)
          </button>
        </div>
      ) : null}
    </div>
  );
}
