/**
 * Schema v12: the gateway's hold on a profile is a lease row (`gateway_leases`, one per profile) instead of a pid file:
 * holder id, pid, host, when it started, was last renewed and expires. It is taken in one IMMEDIATE transaction
 * (core/gateway/lease.ts), so two gateways starting at once cannot both win. And a job's "dispatched" mark (its
 * request left, under `dispatch_message_id` when known) is a column of `gateway_jobs` instead of a flag written over
 * `result_json`: the mark of every existing row moves into the column, a `result_json` that held only the mark becomes
 * NULL, every other result is kept as it was.
 */
export const name = 'gateway_lease';

export const sql = `
CREATE TABLE gateway_leases (
  profile TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  pid INTEGER NOT NULL CHECK (pid > 0),
  host TEXT NOT NULL,
  started_at TEXT NOT NULL,
  renewed_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
) STRICT;

ALTER TABLE gateway_jobs ADD COLUMN dispatched INTEGER NOT NULL DEFAULT 0 CHECK (dispatched IN (0,1));
ALTER TABLE gateway_jobs ADD COLUMN dispatch_message_id TEXT;
UPDATE gateway_jobs SET dispatched = 1, dispatch_message_id = json_extract(result_json, '$.message_id')
  WHERE json_valid(result_json) AND json_type(result_json) = 'object' AND json_extract(result_json, '$.dispatched') = 1;
UPDATE gateway_jobs SET result_json = NULL WHERE dispatched = 1 AND json_remove(result_json, '$.dispatched', '$.message_id') = '{}';
`;
