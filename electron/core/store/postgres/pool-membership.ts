/**
 * A gateway's place on a PostgreSQL store (team mode): gateways on many hosts share the profile's queue, each with a row
 * of the pool (`gateway_pool`, migration 0003) renewed while it runs and deleted when it stops. What keeps two of them
 * off one job is the claim (JobRepository.claimDue), not the pool. A row that expired is a gateway that died or hung:
 * it is pruned when the next gateway joins, and its jobs' claims expire on their own (nothing to reclaim).
 */
import { hostname } from 'node:os';
import type { GatewayMembership, GatewayPoolRepository, GatewayRow } from '../storage.js';

const iso = (ms: number) => new Date(ms).toISOString();

export async function joinPool(pool: GatewayPoolRepository, options: { holder: string; ttlMs: number }): Promise<GatewayMembership> {
  const now = Date.now();
  await pool.prune(iso(now));
  const row: GatewayRow = {
    holder: options.holder,
    pid: process.pid,
    host: hostname(),
    started_at: iso(now),
    renewed_at: iso(now),
    expires_at: iso(now + options.ttlMs),
  };
  await pool.join(row);
  return {
    row,
    takenFrom: null,
    reclaimed: 0,
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
