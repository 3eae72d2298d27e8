/**
 * The gateways of a profile as `gateway status` shows them: SQLite's one lease (store/sqlite/lease.ts), or the rows of
 * a PostgreSQL store's pool, each marked expired or not and, on this host, whether its process still exists.
 */
import { hostname } from 'node:os';
import { isAlive } from '../pid.js';
import type { GatewayList, GatewayRow } from '../store/storage.js';

export interface LeaseView extends GatewayRow {
  profile: string;
  /** The gateway's id (`holder` up to its `#`: identity.ts), what its claims and events name it by. */
  id: string;
  /** Its expiry passed: nothing renews it. */
  expired: boolean;
  /** Whether its process exists; null when it runs on another host (its pid means nothing here). */
  alive: boolean | null;
}

export function leaseView(row: GatewayRow & { profile: string }, now = Date.now(), host = hostname()): LeaseView {
  return { ...row, id: gatewayIdOf(row.holder), expired: Date.parse(row.expires_at) <= now, alive: row.host === host ? isAlive(row.pid) : null };
}

/** The id a pool row or lease holder names: the part before `#` (a holder written before ids existed is its own id). */
export const gatewayIdOf = (holder: string): string => holder.split('#')[0]!;

const holds = (view: LeaseView) => !view.expired && view.alive !== false;

/** Whether a gateway runs for `profile` (SQLite: the lease's holder; PostgreSQL: any gateway of the pool), and which. */
export function gatewaysView(profile: string, list: GatewayList): { running: boolean; lease: LeaseView | null; gateways: LeaseView[] | null } {
  if (list.kind === 'pool') {
    const gateways = list.rows.map((row) => leaseView({ profile, ...row }));
    return { running: gateways.some(holds), lease: null, gateways };
  }
  const lease = list.lease ? leaseView({ profile, ...list.lease }) : null;
  return { running: lease !== null && holds(lease), lease, gateways: null };
}
