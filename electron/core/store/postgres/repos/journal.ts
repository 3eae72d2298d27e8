/** Appends to the event journal on PostgreSQL: repos/events.ts `appendEvent`, redaction and dedupe included. */
import { redactShared } from '../../../security/redact.js';
import { currentEventSource } from '../../event-source.js';
import type { NewEvent } from '../../repos/events.js';
import { rowId } from '../../row-id.js';
import type { JournalWriter } from '../../storage.js';
import { run, type Query } from './query.js';

/** Sequences are drawn at insert, not at commit: readers follow the journal by snapshot (journal-reads.ts), not by sequence. */
export function journalWriter(query: Query): JournalWriter {
  return {
    async append(event: NewEvent, knownSecrets: readonly string[] = []) {
      const eventId = event.eventId ?? rowId();
      const payload = redactShared(event.payload ?? {}, knownSecrets);
      const metadata = event.metadata ? redactShared(event.metadata, knownSecrets) : {};
      const { rows } = await run<{ sequence: string }>(
        query,
        'journal.append',
        `INSERT INTO events (event_id, source, event_type, agent_alias, context_id, task_id, dedupe_key, payload_json, metadata_json)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (dedupe_key) DO NOTHING RETURNING sequence`,
        [
          eventId,
          event.source ?? currentEventSource(),
          event.type,
          event.agentAlias ?? null,
          event.contextId ?? null,
          event.taskId ?? null,
          event.dedupeKey ?? null,
          JSON.stringify(payload),
          JSON.stringify(metadata),
        ],
      );
      return rows[0] ? { sequence: Number(rows[0].sequence), eventId } : null;
    },
  };
}
