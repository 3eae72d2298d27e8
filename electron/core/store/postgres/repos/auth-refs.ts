/** Auth references on PostgreSQL (where a secret lives, never the secret): the statements of repos/auth-refs.ts. */
import { nowIso } from '../../db.js';
import { fromRaw, type AuthRefRow, type RawAuthRef } from '../../repos/auth-refs.js';
import type { AuthRefRepository } from '../../storage.js';
import { changed, run, type Query } from './query.js';

export function authRefRepository(query: Query): AuthRefRepository {
  return {
    async get(name) {
      const { rows } = await run<RawAuthRef>(query, 'authRefs.get', `SELECT * FROM auth_refs WHERE name = $1`, [name]);
      return rows[0] && fromRaw(rows[0]);
    },

    async list() {
      return (await run<RawAuthRef>(query, 'authRefs.list', `SELECT * FROM auth_refs ORDER BY name`)).rows.map(fromRaw);
    },

    async upsert(ref: AuthRefRow) {
      await run(
        query,
        'authRefs.upsert',
        `INSERT INTO auth_refs (name, kind, source, header_name, scheme, env_var, keyring_service, keyring_account, flow_json)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, source = excluded.source, header_name = excluded.header_name,
           scheme = excluded.scheme, env_var = excluded.env_var, keyring_service = excluded.keyring_service,
           keyring_account = excluded.keyring_account, flow_json = excluded.flow_json, updated_at = $10`,
        [ref.name, ref.kind, ref.source, ref.headerName, ref.scheme, ref.envVar, ref.keyringService, ref.keyringAccount, JSON.stringify(ref.flow), nowIso()],
      );
    },

    async remove(name) {
      return changed(await run(query, 'authRefs.remove', `DELETE FROM auth_refs WHERE name = $1`, [name])) > 0;
    },
  };
}
