/**
 * The three reads of updates as message rows (rows/update-rows.ts), written once for both engines: read by the
 * events' task and context indexes. An update journaled by an earlier version also has a `messages` row (its payload
 * names it, `message_row`): it is left out here, read from `messages` only.
 */
import { fragment, sql, type Fragment } from '../sql.js';
import { UPDATE_COLUMNS, UPDATE_EVENT_TYPES } from '../rows/update-rows.js';
import { jsonField, NO_INDEX } from './common.js';
import { contextRunRows, NOT_NARROW } from './update-runs.js';

/** The condition on `events` (aliased `table`) of the update events, however they were stored. */
export const updateTypesWhere = (table?: string): Fragment =>
  fragment`${NO_INDEX}${table ? `${table}.` : ''}event_type IN (${UPDATE_EVENT_TYPES.map((t) => `'${t}'`).join(', ')})`;

/** The condition of the updates stored once (not those journaled by earlier versions, whose `messages` row is read). */
const STORED_ONCE = fragment`${updateTypesWhere()} AND ${jsonField('payload_json', 'message_row')} IS NULL`;

export const UPDATES = {
  /** A task's updates, oldest first (read from idx_events_task, which holds narrow rows too). */
  ofTask: sql`SELECT ${UPDATE_COLUMNS} FROM events WHERE task_id = ? AND ${STORED_ONCE} ORDER BY sequence`,
  /**
   * A context's updates, oldest first: the rows idx_events_context holds, then the narrow rows of the context's runs
   * (schema v14; a narrow row is always an update stored once). Parameters: the context id, twice.
   */
  ofContext: sql`SELECT ${UPDATE_COLUMNS} FROM events WHERE context_id = ? AND ${NOT_NARROW} AND ${STORED_ONCE}
    UNION ${contextRunRows(UPDATE_COLUMNS)} ORDER BY sequence`,
  /** An agent's updates in a context that belong to no task, oldest first. Parameters: (context, agent), twice. */
  taskFree: sql`SELECT ${UPDATE_COLUMNS} FROM events WHERE context_id = ? AND ${NO_INDEX}agent_alias = ? AND ${NO_INDEX}task_id IS NULL AND ${NOT_NARROW} AND ${STORED_ONCE}
    UNION ${contextRunRows(UPDATE_COLUMNS, ' AND r.agent_alias = ? AND e.agent_alias = r.agent_alias AND e.task_id IS NULL')} ORDER BY sequence`,
};
