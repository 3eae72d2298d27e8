/**
 * Schema v8: mutual TLS per agent. `client_tls_json` holds the file paths of the agent's client certificate, its
 * private key and an optional CA bundle, and the name of the auth ref that holds the key's passphrase — paths and
 * names only, never a key or a passphrase. NULL: the agent is reached without a client certificate.
 */
export const name = 'client_tls';

export const sql = `
ALTER TABLE agents ADD COLUMN client_tls_json TEXT CHECK (client_tls_json IS NULL OR (json_valid(client_tls_json) AND json_type(client_tls_json) = 'object'));
`;
