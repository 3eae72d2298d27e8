/**
 * Schema v3: where an agent's credentials may go, and where its card was found.
 * `trusted_origins_json` lists origins besides the base URL's that may receive the agent's credentials;
 * `allow_cross_origin_auth` lets card interfaces on other origins be called without them;
 * `agent_card_url` is the well-known URL that served the cached card (`agent-card.json`, or v0.2's `agent.json`).
 */
export const name = 'origin_pinning';

export const sql = `
ALTER TABLE agents ADD COLUMN trusted_origins_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(trusted_origins_json) AND json_type(trusted_origins_json) = 'array');
ALTER TABLE agents ADD COLUMN allow_cross_origin_auth INTEGER NOT NULL DEFAULT 0 CHECK (allow_cross_origin_auth IN (0,1));
ALTER TABLE agents ADD COLUMN agent_card_url TEXT;
`;
