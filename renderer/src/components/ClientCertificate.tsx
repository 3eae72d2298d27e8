/**
 * The agent page's mutual TLS line: the client certificate `agents.inspect` reports under `client_tls` (subject,
 * issuer, expiry, fingerprint, the files and the passphrase's auth ref name; never the key), or the CA bundle alone.
 * Nothing is shown for an agent without `client_tls`.
 */
import type { ChannelOutput } from '../../../shared/ipc/contract';

export function ClientCertificate({ view }: { view: ChannelOutput<'agents.inspect'> }) {
  const tls = view.client_tls;
  if (!tls) return null;
  return (
    <dl className="kv" data-testid="client-tls">
      <dt>Client certificate</dt>
      <dd data-testid="client-certificate">
        {!tls.client_certificate ? (
          <span className="muted">none</span>
        ) : tls.error ? (
          <span className="health bad">
            ✗ {tls.cert_file}: {tls.error}
          </span>
        ) : (
          <>
            {tls.subject}{' '}
            <span className={tls.expired ? 'health bad' : 'health ok'}>{tls.expired ? `✗ expired ${tls.valid_to}` : `✓ valid until ${tls.valid_to}`}</span>
            <div className="muted small-text">
              issued by {tls.issuer} · {tls.cert_file} · key {tls.key_file}
              {tls.passphrase_ref ? ` · passphrase from auth ref "${tls.passphrase_ref}"` : ''}
            </div>
          </>
        )}
      </dd>
      {tls.ca_file ? (
        <>
          <dt>Server CA</dt>
          <dd>{tls.ca_file}</dd>
        </>
      ) : null}
    </dl>
  );
}
