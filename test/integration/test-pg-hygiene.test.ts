/**
 * The test support's own PostgreSQL connections: one the server terminates while it sits idle in a pool (what
 * dropping a test database `WITH (FORCE)` does to the connections left on it: 57P01) is dropped from the pool quietly.
 * Without the pool's 'error' listener pg raised it as an uncaught error, and vitest failed the run with every test green.
 */
import { describe, expect, it } from 'vitest';
import { withAdminClient } from '../support/postgres.js';
import { postgresStoragesOfBlock } from '../support/stores.js';
import { eventually } from '../support/waits.js';

describe('test support PostgreSQL connections', () => {
  const block = postgresStoragesOfBlock();

  it('a pooled connection terminated while idle is let go, and the pool still answers', async () => {
    const { pool } = await block.open('missive_idle');
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect(pool.idleCount).toBeGreaterThan(0);

    const terminated = await withAdminClient((c) =>
      c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [block.db().name]),
    );
    expect(terminated.rowCount).toBeGreaterThan(0);
    await eventually('the pool to let its terminated connections go', () => pool.totalCount === 0, 10_000);

    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});
