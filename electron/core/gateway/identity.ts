/**
 * A gateway's stable id: what its jobs' claims (`locked_by`, `last_run_by`) and every event it journals
 * (`actor_id`, store/actor.ts) name it by. `gateway run --id NAME`, or by default `<host>/<user>/gw<N>` with N the
 * lowest slot no live gateway of the profile holds: two gateways on one host differ, and one restarted gets its old id
 * back (a gateway whose process is gone on this host, or whose row expired, holds nothing). SQLite's profile has one
 * gateway, so slot 1. The pool row (or the lease) is held as `<id>#<pid>.<random>`: unique among the rows, whatever
 * the id; `gateway status` shows the id before the `#`.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { MissiveError, usageError } from '../../../shared/errors.js';
import { osUserName } from '../store/actor.js';
import type { GatewayMembership, GatewayRow, Storage } from '../store/storage.js';
import { gatewaysView, type LeaseView } from './lease.js';

/** What `--id` accepts: short, and only letters, digits, `.`, `_` and `-` (it shows in logs, tables and paths). */
const ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
/** The slots a default id is looked for in (a bound on the loop: no host runs this many gateways of one profile). */
const MAX_SLOTS = 256;
/** Joins retried when a gateway starting at the same moment took the same slot. */
const MAX_JOINS = 16;

/** `--id`, checked. */
export function parseGatewayId(value: string): string {
  if (!ID_PATTERN.test(value)) {
    throw usageError(
      'invalid_gateway_id',
      `--id "${value.slice(0, 80)}" is not a gateway id`,
      'Use 1 to 64 letters, digits, ".", "_" or "-" (e.g. build-1), or leave --id out for <host>/<user>/gw<N>.',
    );
  }
  return value;
}

/** A host or user name as part of an id: anything but letters, digits, `.`, `_` and `-` becomes `_`. */
const idPart = (text: string) => text.replace(/[^A-Za-z0-9._-]/g, '_') || '_';

/** The default ids of this host and user: `<host>/<user>/gw<N>`. */
const defaultId = (slot: number) => `${idPart(hostname())}/${idPart(osUserName())}/gw${slot}`;

/** The profile's gateways that hold their id: not expired, and (on this host) whose process still exists. */
async function liveGateways(storage: Storage, profile: string): Promise<LeaseView[]> {
  const view = gatewaysView(profile, await storage.gateways(profile));
  const rows = view.gateways ?? (view.lease ? [view.lease] : []);
  return rows.filter((g) => !g.expired && g.alive !== false);
}

/** The one of two rows holding one id that keeps it: the first to join (their holders break a tie). */
const joinedBefore = (a: GatewayRow, b: GatewayRow) => a.started_at < b.started_at || (a.started_at === b.started_at && a.holder < b.holder);

function idInUse(id: string, by: GatewayRow): MissiveError {
  return new MissiveError(
    'orchestration',
    'gateway_id_in_use',
    `gateway id "${id}" is held by a running gateway (pid ${by.pid} on ${by.host}, since ${by.started_at})`,
    {
      help: 'Give this one another --id, or stop that one first (missive gateway status lists them). A gateway that died frees its id when its row expires (--claim-ttl).',
    },
  );
}

/**
 * Picks this gateway's id (`requested`, else the lowest free slot) and joins the profile's gateways under it (the pool
 * on PostgreSQL, the lease on SQLite). Two gateways starting at once may pick one slot: both join, then the later
 * one leaves and takes the next slot (or, with `--id`, stops with `orchestration::gateway_id_in_use`, exit 70).
 */
export async function joinAsGateway(
  storage: Storage,
  profile: string,
  ttlMs: number,
  requested?: string,
): Promise<{ id: string; membership: GatewayMembership }> {
  for (let join = 0; join < MAX_JOINS; join++) {
    const live = storage.kind === 'postgres' ? await liveGateways(storage, profile) : [];
    const held = new Map(live.map((g) => [g.id, g]));
    let id = requested;
    if (id === undefined) {
      for (let slot = 1; slot <= MAX_SLOTS && id === undefined; slot++) if (!held.has(defaultId(slot))) id = defaultId(slot);
      if (id === undefined)
        throw new MissiveError('orchestration', 'gateway_slots_full', `${MAX_SLOTS} gateways of this profile run on this host as this user`);
    }
    const holding = held.get(id);
    if (holding) throw idInUse(id, holding);
    const membership = await storage.membership({ profile, holder: `${id}#${process.pid}.${randomUUID().slice(0, 8)}`, ttlMs });
    if (storage.kind !== 'postgres') return { id, membership };
    const rival = (await liveGateways(storage, profile)).find((g) => g.holder !== membership.row.holder && g.id === id && joinedBefore(g, membership.row));
    if (!rival) return { id, membership };
    await membership.release();
    if (requested !== undefined) throw idInUse(id, rival);
  }
  throw new MissiveError('orchestration', 'gateway_id_contended', 'other gateways kept taking the id this one picked', {
    help: 'Start it again, or give it its own --id.',
  });
}
