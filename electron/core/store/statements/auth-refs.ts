/** The auth refs' statements, written once for both engines (sql.ts). */
import type { AuthRefRow } from '../rows/auth-refs.js';
import { sql } from '../sql.js';

export const AUTH_REFS = {
  get: sql`SELECT * FROM auth_refs WHERE name = ?`,
  list: sql`SELECT * FROM auth_refs ORDER BY name`,
  upsert: sql`INSERT INTO auth_refs (name, kind, source, header_name, scheme, env_var, keyring_service, keyring_account, flow_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, source = excluded.source, header_name = excluded.header_name,
       scheme = excluded.scheme, env_var = excluded.env_var, keyring_service = excluded.keyring_service,
       keyring_account = excluded.keyring_account, flow_json = excluded.flow_json, updated_at = ?`,
  remove: sql`DELETE FROM auth_refs WHERE name = ?`,
};

/** The parameters of AUTH_REFS.upsert. */
export const upsertParams = (ref: AuthRefRow, now: string): unknown[] => [
  ref.name,
  ref.kind,
  ref.source,
  ref.headerName,
  ref.scheme,
  ref.envVar,
  ref.keyringService,
  ref.keyringAccount,
  JSON.stringify(ref.flow),
  now,
];
