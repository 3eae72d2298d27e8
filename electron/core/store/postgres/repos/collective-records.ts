/**
 * What `events replay` reads back on PostgreSQL (statements/collective-records.ts, and its own read of a context's journal): a context's journal in
 * sequence order, message records, a context's local messages.
 */
import { messageRecordOf, type RawMessageRecord } from '../../rows/collective-records.js';
import { eventRowOf, readableEvent, type EventRow, type RawEvent } from '../../rows/events.js';
import { RECORDS } from '../../statements/collective-records.js';
import type { ConversationRepository } from '../../storage.js';
import { EVENT_READ_COLUMNS } from './journal-reads.js';
import { run, type Query } from './query.js';

export function collectiveRecordMethods(query: Query): Pick<ConversationRepository, 'contextJournal' | 'getMessageRecord' | 'localMessagesOfContext'> {
  return {
    async contextJournal(contextId, page = 1000) {
      const events: EventRow[] = [];
      for (let after = 0; ;) {
        const { rows } = await run<RawEvent>(
          query,
          'conversation.contextJournal',
          `SELECT ${EVENT_READ_COLUMNS} FROM events WHERE context_id = $1 AND sequence > $2 ORDER BY sequence ASC LIMIT $3`,
          [contextId, after, page],
        );
        events.push(...rows.map((r) => readableEvent(eventRowOf(r))));
        if (rows.length < page) return events;
        after = events.at(-1)!.sequence;
      }
    },

    async getMessageRecord(messageId) {
      const { rows } = await run<RawMessageRecord>(query, 'conversation.getMessageRecord', RECORDS.message, [messageId]);
      return rows[0] ? messageRecordOf(rows[0]) : null;
    },

    async localMessagesOfContext(contextId) {
      const { rows } = await run<RawMessageRecord>(query, 'conversation.localMessagesOfContext', RECORDS.localOfContext, [contextId]);
      return rows.map(messageRecordOf);
    },
  };
}
