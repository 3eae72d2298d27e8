/** Appends to the event journal on PostgreSQL: repos/events.ts `appendEvent`, redaction and dedupe included. */
import { eventValues, INSERTED_EVENT_COLUMNS, type NewEvent } from '../../repos/events.js';
import type { JournalWriter } from '../../storage.js';
import { run, type Query } from './query.js';

/** Sequences are drawn at insert, not at commit: readers follow the journal by snapshot (journal-reads.ts), not by sequence. */
export function journalWriter(query: Query): JournalWriter {
  return {
    async append(event: NewEvent, knownSecrets: readonly string[] = []) {
      const { eventId, values } = eventValues(event, knownSecrets);
      const { rows } = await run<{ sequence: string }>(
        query,
        'journal.append',
        `INSERT INTO events (${INSERTED_EVENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (dedupe_key) DO NOTHING RETURNING sequence`,
        values,
      );
      return rows[0] ? { sequence: Number(rows[0].sequence), eventId } : null;
    },
  };
}
