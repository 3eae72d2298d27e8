/** Local A2A context rows and a context's export, as both engines store them, and their decoders. Neither engine owns this module. */
import { storedEnum, storedJson, storedRow } from '../stored-json.js';
import type { UpdateMessageRow } from './update-rows.js';

export interface ContextRow {
  context_id: string;
  agent_alias: string | null;
  name: string | null;
  parent_context_id: string | null;
  state: 'open' | 'closed' | 'archived';
  metadata: Record<string, unknown>;
  closed_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A contexts row as stored (`SELECT *`). */
export type RawContext = Omit<ContextRow, 'metadata'> & { metadata_json: string; summary: string | null };
export const CONTEXT_STATES: readonly ContextRow['state'][] = ['open', 'closed', 'archived'];

/** A stored row as a ContextRow: metadata parsed, `summary` dropped; a row that cannot be read is storage::corrupt_row. */
export const fromRaw = ({ metadata_json, summary: _, ...rest }: RawContext): ContextRow => {
  const at = storedRow('contexts', { context_id: rest.context_id });
  return { ...rest, state: storedEnum(rest.state, CONTEXT_STATES, at, 'state'), metadata: storedJson(metadata_json, at, 'metadata_json', 'object') };
};

export interface ContextSummary extends ContextRow {
  messages: number;
  tasks: number;
  events: number;
}

/** The key that names a row of each table an export reads, for a corrupt_row error. */
const EXPORT_KEYS: Record<string, readonly string[]> = {
  messages: ['message_id'],
  tasks: ['task_id'],
  artifacts: ['task_id', 'artifact_id'],
  events: ['sequence', 'event_id'],
};

/**
 * A row of `table` with each `*_json` column parsed (stored-json.ts), under its name without the suffix (an export's
 * rows); a column that cannot be read is storage::corrupt_row naming the row.
 */
export const parseJsonColumns =
  (table: string) =>
  (row: Record<string, unknown>): Record<string, unknown> => {
    const at = () => storedRow(table, Object.fromEntries((EXPORT_KEYS[table] ?? []).map((k) => [k, (row[k] ?? null) as string | number | null])));
    return Object.fromEntries(
      Object.entries(row).map(([k, v]) => (k.endsWith('_json') && typeof v === 'string' ? [k.slice(0, -5), storedJson(v, at(), k)] : [k, v])),
    );
  };

/** Every row linked to a context, for export (JSON columns parsed; its updates among the messages). */
export interface ContextRows {
  messages: Array<(Record<string, unknown> & { created_at: string }) | Omit<UpdateMessageRow, 'row'>>;
  tasks: Array<Record<string, unknown>>;
  artifacts: Array<Record<string, unknown>>;
  events: Array<Record<string, unknown>>;
}
