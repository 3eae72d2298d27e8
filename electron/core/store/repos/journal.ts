/**
 * The journal's writer, and its lookup of a dedupe key, on SQLite as repository objects (storage.ts's JournalWriter and
 * that method of ConversationRepository; repos/events.ts holds the statements). Its own module: repos/events.ts is read
 * by repos/journal-query.ts, which storage.ts reads a type of.
 */
import type { Db } from '../db.js';
import type { WithDb } from '../repository-forms.js';
import type { ConversationRepository, JournalWriter } from '../storage.js';
import { appendEvent, hasEventKey } from './events.js';

/** @public Read by sqlite/storage.ts from the module it loads on first use (a member access knip does not follow). */
export const sqliteJournal: WithDb<JournalWriter, Db> = { append: appendEvent };

export const sqliteEventKeys: WithDb<Pick<ConversationRepository, 'hasEventKey'>, Db> = { hasEventKey };
