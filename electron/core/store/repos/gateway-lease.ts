/**
 * The gateway's lease on a profile: one row per profile naming the gateway that holds it (holder id, pid, host) and
 * until when. Taking it is a read and a write that the caller runs in one IMMEDIATE transaction (core/gateway/lease.ts);
 * renewing and releasing only touch the row while the caller still holds it.
 */
import type { Db } from '../db.js';

export interface LeaseRow {
  profile: string;
  holder: string;
  pid: number;
  host: string;
  started_at: string;
  renewed_at: string;
  expires_at: string;
}

export const getLease = (db: Db, profile: string) =>
  db.prepare(`SELECT profile, holder, pid, host, started_at, renewed_at, expires_at FROM gateway_leases WHERE profile = ?`).get(profile) as LeaseRow | undefined;

/** Writes `row` as the profile's lease, over whatever was there (the caller decided it may). */
export const putLease = (db: Db, row: LeaseRow): void =>
  void db
    .prepare(
      `INSERT INTO gateway_leases (profile, holder, pid, host, started_at, renewed_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(profile) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, host = excluded.host, started_at = excluded.started_at,
         renewed_at = excluded.renewed_at, expires_at = excluded.expires_at`,
    )
    .run(row.profile, row.holder, row.pid, row.host, row.started_at, row.renewed_at, row.expires_at);

/** Extends `holder`'s lease; false when the row is no longer its own (another gateway took it over). */
export const renewLease = (db: Db, profile: string, holder: string, renewedAt: string, expiresAt: string): boolean =>
  db.prepare(`UPDATE gateway_leases SET renewed_at = ?, expires_at = ? WHERE profile = ? AND holder = ?`).run(renewedAt, expiresAt, profile, holder).changes === 1;

/** Gives the lease up, if `holder` still has it. */
export const deleteLease = (db: Db, profile: string, holder: string): boolean =>
  db.prepare(`DELETE FROM gateway_leases WHERE profile = ? AND holder = ?`).run(profile, holder).changes === 1;
