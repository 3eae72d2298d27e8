/**
 * The client certificate of an agent as `agent inspect` and `agents.inspect` report it under `client_tls`
 * (electron/core/agents/client-tls.ts builds it; the agent page shows it). Isomorphic: a type only.
 * The certificate's facts, never the key.
 */
export interface ClientTlsView {
  /** Whether a client certificate is presented (false: only a CA bundle is configured). */
  client_certificate: boolean;
  cert_file: string | null;
  key_file: string | null;
  ca_file: string | null;
  passphrase_ref: string | null;
  subject: string | null;
  issuer: string | null;
  valid_from: string | null;
  valid_to: string | null;
  expired: boolean | null;
  fingerprint_sha256: string | null;
  /** Why the certificate could not be read, if it could not. */
  error: string | null;
}
