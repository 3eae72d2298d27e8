/**
 * One gateway per profile on SQLite (one host): a lease row (`gateway_leases`: holder id, pid, host, expiry). It is read
 * and written in one IMMEDIATE transaction, so of two gateways starting at once exactly one takes it; the holder renews
 * it while it runs and deletes it when it stops. A lease is taken over only when it no longer holds: it expired (its
 * gateway died or hung and stopped renewing), or its holder is a process on this host that no longer exists (checked
 * inside the same transaction; a pid from another host means nothing here, so such a lease is waited out). The lease
 * being this gateway's alone, the jobs still `running` were left by a dead one: taking it makes them due again.
 */
import { hostname } from 'node:os';
import { MissiveError } from '../../../../shared/errors.js';
import { isAlive } from '../../pid.js';
import type { Db } from '../db.js';
import type { Store } from '../store.js';
import type { GatewayMembership, GatewayRow } from '../storage.js';
import { reclaimOrphans } from '../repos/gateway-jobs.js';

type LeaseRow = GatewayRow & { profile: string };

const COLUMNS = 'holder, pid, host, started_at, renewed_at, expires_at';

const getLease = (db: Db, profile: string) => db.prepare(`SELECT ${COLUMNS} FROM gateway_leases WHERE profile = ?`).get(profile) as GatewayRow | undefined;

/** Writes `row` as the profile's lease, over whatever was there (the caller decided it may). */
const putLease = (db: Db, row: LeaseRow): void =>
  void db
    .prepare(
      `INSERT INTO gateway_leases (profile, holder, pid, host, started_at, renewed_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(profile) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, host = excluded.host, started_at = excluded.started_at,
         renewed_at = excluded.renewed_at, expires_at = excluded.expires_at`,
    )
    .run(row.profile, row.holder, row.pid, row.host, row.started_at, row.renewed_at, row.expires_at);

/** Extends `holder`'s lease; false when the row is no longer its own (another gateway took it over). */
const renewLease = (db: Db, profile: string, holder: string, renewedAt: string, expiresAt: string): boolean =>
  db.prepare(`UPDATE gateway_leases SET renewed_at = ?, expires_at = ? WHERE profile = ? AND holder = ?`).run(renewedAt, expiresAt, profile, holder).changes ===
  1;

/** Gives the lease up, if `holder` still has it. */
const deleteLease = (db: Db, profile: string, holder: string): boolean =>
  db.prepare(`DELETE FROM gateway_leases WHERE profile = ? AND holder = ?`).run(profile, holder).changes === 1;

const iso = (ms: number) => new Date(ms).toISOString();

/** Whether `row` still holds its profile at `now`: not expired and, on this host, its process alive. */
function holds(row: GatewayRow, now: number, host: string): boolean {
  if (Date.parse(row.expires_at) <= now) return false;
  return row.host !== host || isAlive(row.pid);
}

/** The profile's lease, live or expired; null when no gateway holds or held it. */
export const leaseOf = (store: Store, profile: string): GatewayRow | null => getLease(store.db, profile) ?? null;

/**
 * Takes the profile's lease for `holder` for `ttlMs`, or throws `orchestration::gateway_running` (exit 70) when
 * another gateway holds it.
 */
export function acquireLease(store: Store, options: { profile: string; holder: string; ttlMs: number }): GatewayMembership {
  const { profile } = options;
  const host = hostname();
  // The read and the write in one IMMEDIATE transaction: a second gateway waits for the first to commit, then reads it.
  const taken = store.transaction((): { row: GatewayRow; takenFrom: GatewayRow | null } | { held: GatewayRow } => {
    const current = getLease(store.db, profile);
    const now = Date.now();
    if (current && holds(current, now, host)) return { held: current };
    const row: GatewayRow = {
      holder: options.holder,
      pid: process.pid,
      host,
      started_at: iso(now),
      renewed_at: iso(now),
      expires_at: iso(now + options.ttlMs),
    };
    putLease(store.db, { profile, ...row });
    return { row, takenFrom: current ?? null };
  });
  if ('held' in taken) {
    const h = taken.held;
    throw new MissiveError(
      'orchestration',
      'gateway_running',
      `a gateway is already running for this profile (pid ${h.pid} on ${h.host}, since ${h.started_at}; its lease runs until ${h.expires_at})`,
      {
        help: 'Stop it first, or check it with: missive gateway status. A gateway that died on another host frees the profile when its lease expires.',
      },
    );
  }
  const { row, takenFrom } = taken;
  let reclaimed: number;
  try {
    reclaimed = reclaimOrphans(store.db);
  } catch (error) {
    deleteLease(store.db, profile, row.holder);
    throw error;
  }
  return {
    row,
    takenFrom,
    reclaimed,
    renew: async () => {
      const now = Date.now();
      return renewLease(store.db, profile, row.holder, iso(now), iso(now + options.ttlMs));
    },
    release: async () => void deleteLease(store.db, profile, row.holder),
  };
}
