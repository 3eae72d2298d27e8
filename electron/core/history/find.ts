/**
 * The send or stream a message id names: the full id or a unique prefix of it (the history list prints whole ids;
 * `history show` takes the first characters, as `job show` does). Read through the journal's index of request
 * message ids (idx_events_request_message): a range scan from the prefix, at most two ids looked at.
 */
import { usageError } from '../../../shared/errors.js';
import type { Db } from '../store/db.js';

const STARTS = `event_type IN ('a2a.send.started', 'a2a.send.completed', 'a2a.send.failed', 'a2a.stream.started', 'a2a.stream.completed', 'a2a.stream.failed')`;
const ID = `json_extract(payload_json, '$.message_id')`;

/** The SQL of the lookup (tests may EXPLAIN it): distinct request ids in `[prefix, prefix + U+10FFFF)`. */
export const requestIdsByPrefixSql = `SELECT DISTINCT ${ID} AS id FROM events INDEXED BY idx_events_request_message WHERE ${ID} >= ? AND ${ID} < ? AND ${STARTS} ORDER BY id LIMIT 2`;

/** The one request message id `text` names (a full id wins over being a prefix of a longer one). */
export function findRequestMessageId(db: Db, text: string): string {
  const prefix = text.trim();
  const unknown = () => usageError('unknown_request', `no send or stream with message id "${text}" in the journal`, 'List them with missive history list, or in the History view.');
  if (!prefix) throw unknown();
  const ids = (db.prepare(requestIdsByPrefixSql).all(prefix, `${prefix}\u{10FFFF}`) as Array<{ id: string }>).map((r) => r.id);
  if (ids.length === 0) throw unknown();
  if (ids.length > 1 && ids[0] !== prefix) throw usageError('ambiguous_request', `"${text}" names more than one send or stream`, 'Give more of the message id (missive history list shows them).');
  return ids[0]!;
}
