/** store/sql.ts: one statement text, PostgreSQL's form with `$1..$n` where SQLite reads `?`. */
import { describe, expect, it } from 'vitest';
import { differ, numbered, sql } from '../../electron/core/store/sql.js';

describe('numbered placeholders', () => {
  it('numbers each ? in order, and leaves a ? inside a quoted literal alone', () => {
    expect(numbered('SELECT * FROM t WHERE a = ? AND b IN (?, ?)')).toBe('SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)');
    expect(numbered(`SELECT '?' AS q, ? AS a WHERE x LIKE '%?%' ESCAPE '\\' AND y = ?`)).toBe(
      `SELECT '?' AS q, $1 AS a WHERE x LIKE '%?%' ESCAPE '\\' AND y = $2`,
    );
  });

  it('reads a doubled quote inside a literal as part of it, and an unterminated literal as running to the end', () => {
    expect(numbered(`SELECT 'it''s ?' AS t, ?`)).toBe(`SELECT 'it''s ?' AS t, $1`);
    expect(numbered(`SELECT ? || 'open ?`)).toBe(`SELECT $1 || 'open ?`);
    expect(numbered('no parameters')).toBe('no parameters');
  });

  it("builds both engines' texts from one statement, splices included", () => {
    const cast = differ('count(*)', 'count(*)::int');
    expect(sql`SELECT ${cast} FROM events WHERE task_id = ? AND sequence > ?`).toEqual({
      sqlite: 'SELECT count(*) FROM events WHERE task_id = ? AND sequence > ?',
      postgres: 'SELECT count(*)::int FROM events WHERE task_id = $1 AND sequence > $2',
    });
  });
});
