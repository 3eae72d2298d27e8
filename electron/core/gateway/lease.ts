/**
 * One gateway per profile: a lease row in the store (`gateway_leases`: holder id, pid, host, expiry). It is read and
 * written in one IMMEDIATE transaction, so of two gateways starting at once exactly one takes it; the holder renews it
 * while it runs and deletes it when it stops. A lease is taken over only when it no longer holds: it expired (its
 * gateway died or hung and stopped renewing), or its holder is a process on this host that no longer exists (checked
 * inside the same transaction; a pid from another host means nothing here, so such a lease is waited out).
 */
import { hostname } from 'node:os';
import { MissiveError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { deleteLease, getLease, putLease, renewLease, type LeaseRow } from '../store/repos/gateway-lease.js';

export interface LeaseView extends LeaseRow {
  /** Its expiry passed: nothing renews it. */
  expired: boolean;
  /** Whether its process exists; null when it runs on another host (its pid means nothing here). */
  alive: boolean | null;
}

export interface GatewayLease {
  readonly row: LeaseRow;
  /** The lease this one replaced (expired, or its holder gone), if any. */
  readonly takenFrom: LeaseRow | null;
  /** Extends the lease by its time to live; false when another gateway has taken it over. */
  renew(): boolean;
  /** Deletes the lease if this gateway still holds it. */
  release(): void;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Whether `row` still holds its profile at `now`: not expired and, on this host, its process alive. */
function holds(row: LeaseRow, now: number, host: string): boolean {
  if (Date.parse(row.expires_at) <= now) return false;
  return row.host !== host || isAlive(row.pid);
}

export function leaseView(row: LeaseRow, now = Date.now(), host = hostname()): LeaseView {
  return { ...row, expired: Date.parse(row.expires_at) <= now, alive: row.host === host ? isAlive(row.pid) : null };
}

/** The profile's lease as `gateway status` shows it, and whether a gateway holds the profile. */
export function leaseStatus(core: Core): { running: boolean; lease: LeaseView | null } {
  const row = getLease(core.store().db, core.config.profile);
  if (!row) return { running: false, lease: null };
  const view = leaseView(row);
  return { running: !view.expired && view.alive !== false, lease: view };
}

/**
 * Takes the profile's lease for `holder` for `ttlMs`, or throws `orchestration::gateway_running` (exit 70) when
 * another gateway holds it.
 */
export function acquireLease(core: Core, options: { holder: string; ttlMs: number }): GatewayLease {
  const store = core.store();
  const profile = core.config.profile;
  const host = hostname();
  // The read and the write in one IMMEDIATE transaction: a second gateway waits for the first to commit, then reads it.
  const taken = store.transaction((): { row: LeaseRow; takenFrom: LeaseRow | null } | { held: LeaseRow } => {
    const current = getLease(store.db, profile);
    const now = Date.now();
    if (current && holds(current, now, host)) return { held: current };
    const row: LeaseRow = { profile, holder: options.holder, pid: process.pid, host, started_at: iso(now), renewed_at: iso(now), expires_at: iso(now + options.ttlMs) };
    putLease(store.db, row);
    return { row, takenFrom: current ?? null };
  });
  if ('held' in taken) {
    const h = taken.held;
    throw new MissiveError('orchestration', 'gateway_running', `a gateway is already running for this profile (pid ${h.pid} on ${h.host}, since ${h.started_at}; its lease runs until ${h.expires_at})`, {
      help: 'Stop it first, or check it with: missive gateway status. A gateway that died on another host frees the profile when its lease expires.',
    });
  }
  const { row, takenFrom } = taken;
  return {
    row,
    takenFrom,
    renew: () => {
      const now = Date.now();
      return renewLease(store.db, profile, row.holder, iso(now), iso(now + options.ttlMs));
    },
    release: () => void deleteLease(store.db, profile, row.holder),
  };
}
