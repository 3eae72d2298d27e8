/** Appends to the event journal on PostgreSQL: statements/events.ts's append, redaction and dedupe included (rows/events.ts). */
import { eventValues, type NewEvent } from '../../rows/events.js';
import { APPEND, APPEND_ROWS_POSTGRES } from '../../statements/events.js';
import { sql } from '../../sql.js';
import type { JournalWriter } from '../../storage.js';
import { run, type Query } from './query.js';

/** PostgreSQL says the sequence it drew (SQLite's is the insert's rowid). */
const APPEND_RETURNING = sql`${APPEND} RETURNING sequence`;

/** Sequences are drawn at insert, not at commit: readers follow the journal by snapshot (journal-reads.ts), not by sequence. */
export function journalWriter(query: Query): JournalWriter {
  return {
    async append(event: NewEvent, knownSecrets: readonly string[] = []) {
      const { eventId, values } = eventValues(event, knownSecrets);
      const { rows } = await run<{ sequence: string }>(query, 'journal.append', APPEND_RETURNING, values);
      return rows[0] ? { sequence: Number(rows[0].sequence), eventId } : null;
    },
  };
}

/** Appends rows (each the values of `eventValues`, oldest first) with one statement: a column of values per parameter. */
export async function appendRows(query: Query, rows: readonly unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  const columns = rows[0]!.map((_, column) => rows.map((row) => row[column]));
  await run(query, 'journal.appendRows', APPEND_ROWS_POSTGRES, columns);
}
