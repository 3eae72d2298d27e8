/**
 * The pool of a profile's gateways on PostgreSQL (migration 0003's `gateway_pool`): one row per running gateway,
 * renewed while it runs and deleted when it stops. A row is expired once its `expires_at` is not after now (the
 * lease's rule, core/gateway/lease.ts); timestamps are ISO text, compared as text.
 */
import type { GatewayPoolRepository, GatewayRow } from '../../storage.js';
import { changed, run, type Query } from './query.js';

export function gatewayPoolRepository(query: Query): GatewayPoolRepository {
  return {
    async join(g) {
      await run(query, 'gatewayPool.join', `INSERT INTO gateway_pool (holder, pid, host, started_at, renewed_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
        g.holder,
        g.pid,
        g.host,
        g.started_at,
        g.renewed_at,
        g.expires_at,
      ]);
    },

    async renew(holder, renewedAt, expiresAt) {
      return (
        changed(
          await run(query, 'gatewayPool.renew', `UPDATE gateway_pool SET renewed_at = $1, expires_at = $2 WHERE holder = $3`, [renewedAt, expiresAt, holder]),
        ) === 1
      );
    },

    async leave(holder) {
      await run(query, 'gatewayPool.leave', `DELETE FROM gateway_pool WHERE holder = $1`, [holder]);
    },

    async list() {
      const { rows } = await run<GatewayRow>(
        query,
        'gatewayPool.list',
        `SELECT holder, pid, host, started_at, renewed_at, expires_at FROM gateway_pool ORDER BY started_at, holder`,
      );
      return rows;
    },

    async prune(before) {
      return changed(await run(query, 'gatewayPool.prune', `DELETE FROM gateway_pool WHERE expires_at <= $1`, [before]));
    },
  };
}
