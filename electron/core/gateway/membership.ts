/**
 * How a gateway takes its place for a profile. On SQLite (one host) it takes the profile's lease: one gateway per
 * profile (lease.ts). On PostgreSQL (team mode) gateways on many hosts share the profile's queue: each joins the pool
 * (`gateway_pool`, one row per gateway, renewed while it runs), and what keeps two of them off one job is the claim
 * (JobRepository.claimDue), not the lease. A pool row that expired is a gateway that died or hung: it is pruned when
 * the next gateway joins, and its jobs' claims expire on their own.
 */
import { hostname } from 'node:os';
import type { Core } from '../handle.js';
import type { GatewayRow, Storage } from '../store/storage.js';
import { acquireLease, leaseView, type LeaseView } from './lease.js';

export interface GatewayMembership {
  readonly row: GatewayRow;
  /** The lease this gateway took over (SQLite: an expired lease, or one whose process is gone), if any. */
  readonly takenFrom: GatewayRow | null;
  /** Extends the lease or the pool row; false when another gateway took the profile's lease over (SQLite). */
  renew(): Promise<boolean>;
  release(): Promise<void>;
}

const iso = (ms: number) => new Date(ms).toISOString();

export async function joinGateways(core: Core, storage: Storage, options: { holder: string; ttlMs: number }): Promise<GatewayMembership> {
  const pool = storage.gatewayPool;
  if (!pool) {
    const lease = acquireLease(core, options);
    return { row: lease.row, takenFrom: lease.takenFrom, renew: async () => lease.renew(), release: async () => lease.release() };
  }
  const now = Date.now();
  await pool.prune(iso(now));
  const row: GatewayRow = { holder: options.holder, pid: process.pid, host: hostname(), started_at: iso(now), renewed_at: iso(now), expires_at: iso(now + options.ttlMs) };
  await pool.join(row);
  return {
    row,
    takenFrom: null,
    renew: async () => {
      const at = Date.now();
      if (await pool.renew(options.holder, iso(at), iso(at + options.ttlMs))) return true;
      // Pruned as expired by a gateway that joined while this one stalled: the pool has no owner to lose, so this
      // gateway takes its place again (its jobs' claims are what a stall may have lost, each renewed on its own).
      await pool.join({ ...row, renewed_at: iso(at), expires_at: iso(at + options.ttlMs) });
      return true;
    },
    release: () => pool.leave(options.holder),
  };
}

/** The gateways of a PostgreSQL store's pool as `gateway status` shows them (expired rows included, marked). */
export async function poolStatus(core: Core, storage: Storage): Promise<LeaseView[] | null> {
  if (!storage.gatewayPool) return null;
  return (await storage.gatewayPool.list()).map((row) => leaseView({ profile: core.config.profile, ...row }));
}
