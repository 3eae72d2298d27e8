/**
 * Help for TLS failures, so a refused handshake names its likely fix: an untrusted server certificate needs the
 * agent's CA bundle, a server that drops or rejects the handshake over https may require a client certificate.
 */
const UNTRUSTED_SERVER = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const CLIENT_CERT_REFUSED = new Set([
  'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
  'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE',
  'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE',
  'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA',
  'ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN',
  'ERR_SSL_TLSV1_ALERT_ACCESS_DENIED',
]);

/** Connections an https server may close on a client without an acceptable certificate (TLS 1.3 reports it late). */
const DROPPED = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** The help for a failed request to `where` with this error code, or undefined when it is not a TLS matter. */
export function tlsFailureHelp(code: string | undefined, where: string): string | undefined {
  if (!code) return undefined;
  if (UNTRUSTED_SERVER.has(code)) {
    return "missive does not trust the agent's server certificate. If it comes from a private CA, give the CA bundle: missive agent add <alias> <url> --ca-cert FILE (or ca_file in client_tls of [agents.<alias>]).";
  }
  if (CLIENT_CERT_REFUSED.has(code) || (DROPPED.has(code) && where.startsWith('https:'))) {
    return 'If the agent requires mutual TLS, register a client certificate it accepts: missive agent add <alias> <url> --client-cert FILE --client-key FILE (or client_tls in [agents.<alias>]); check it with: missive agent inspect <alias>.';
  }
  return undefined;
}
