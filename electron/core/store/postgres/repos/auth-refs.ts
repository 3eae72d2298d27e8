/** Auth references on PostgreSQL (where a secret lives, never the secret): the statements of statements/auth-refs.ts. */
import { nowIso } from '../../rows/clock.js';
import { fromRaw, type AuthRefRow, type RawAuthRef } from '../../rows/auth-refs.js';
import { AUTH_REFS, upsertParams } from '../../statements/auth-refs.js';
import type { AuthRefRepository } from '../../storage.js';
import { changed, run, type Query } from './query.js';

export function authRefRepository(query: Query): AuthRefRepository {
  return {
    async get(name) {
      const { rows } = await run<RawAuthRef>(query, 'authRefs.get', AUTH_REFS.get, [name]);
      return rows[0] && fromRaw(rows[0]);
    },

    async list() {
      return (await run<RawAuthRef>(query, 'authRefs.list', AUTH_REFS.list)).rows.map(fromRaw);
    },

    async upsert(ref: AuthRefRow) {
      await run(query, 'authRefs.upsert', AUTH_REFS.upsert, upsertParams(ref, nowIso()));
    },

    async remove(name) {
      return changed(await run(query, 'authRefs.remove', AUTH_REFS.remove, [name])) > 0;
    },
  };
}
