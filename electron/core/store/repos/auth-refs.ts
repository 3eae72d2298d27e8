/** Auth references on SQLite (where a secret lives, never the secret): the statements of statements/auth-refs.ts. */
import type { Db } from '../db.js';
import { nowIso } from '../rows/clock.js';
import { fromRaw, type AuthRefRow, type RawAuthRef } from '../rows/auth-refs.js';
import { AUTH_REFS, upsertParams } from '../statements/auth-refs.js';
import type { WithDb } from '../repository-forms.js';
import type { AuthRefRepository } from '../storage.js';

export function upsertAuthRef(db: Db, ref: AuthRefRow): void {
  db.prepare(AUTH_REFS.upsert.sqlite).run(...upsertParams(ref, nowIso()));
}

export function getAuthRef(db: Db, name: string): AuthRefRow | undefined {
  const raw = db.prepare(AUTH_REFS.get.sqlite).get(name) as RawAuthRef | undefined;
  return raw && fromRaw(raw);
}

export function listAuthRefs(db: Db): AuthRefRow[] {
  return (db.prepare(AUTH_REFS.list.sqlite).all() as RawAuthRef[]).map(fromRaw);
}

export function deleteAuthRef(db: Db, name: string): boolean {
  return db.prepare(AUTH_REFS.remove.sqlite).run(name).changes > 0;
}

/** The auth ref repository on SQLite (storage.ts's AuthRefRepository, the connection first). */
export const sqliteAuthRefs: WithDb<AuthRefRepository, Db> = { get: getAuthRef, list: listAuthRefs, upsert: upsertAuthRef, remove: deleteAuthRef };
