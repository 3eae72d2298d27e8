/**
 * Schema v7: the flow an auth ref names (header, basic, api_key, oauth2_client_credentials, oauth2_device_code) and
 * its non-secret settings (username, key name and place, token URL, issuer, client id, scopes) as one JSON object.
 * Secrets (passwords, API keys, client secrets, access tokens) never go here: they stay in env vars or the keyring.
 */
export const name = 'auth_flows';

export const sql = `
ALTER TABLE auth_refs ADD COLUMN flow_json TEXT NOT NULL DEFAULT '{"type":"header"}' CHECK (json_valid(flow_json) AND json_type(flow_json) = 'object');
`;
