/**
 * Schema v9: where a locally registered agent's card-signing keys come from (`agent add|set --jwks-url/--jwks-file`).
 * `card_keys_json` holds `{jwks_url?, jwks_file?}`: a URL and a path of public keys, nothing secret. NULL: the keys come
 * from the signature's own `jku` (or, for a config agent, `jwks_url` / `jwks_file` under `[agents.NAME]`).
 */
export const name = 'card_keys';

export const sql = `
ALTER TABLE agents ADD COLUMN card_keys_json TEXT CHECK (card_keys_json IS NULL OR (json_valid(card_keys_json) AND json_type(card_keys_json) = 'object'));
`;
