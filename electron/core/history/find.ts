/**
 * The send or stream a message id names: the full id or a unique prefix of it (the history list prints whole ids;
 * `history show` takes the first characters, as `job show` does). Read through the journal's index of request
 * message ids (idx_events_request_message): a range scan from the prefix, at most two ids looked at.
 */
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';

/** The one request message id `text` names (a full id wins over being a prefix of a longer one), on either store. */
export async function findRequestMessageId(core: Core, text: string): Promise<string> {
  const prefix = text.trim();
  const unknown = () =>
    usageError('unknown_request', `no send or stream with message id "${text}" in the journal`, 'List them with missive history list, or in the History view.');
  if (!prefix) throw unknown();
  const ids = await (await core.storage()).history.requestIdsByPrefix(prefix);
  if (ids.length === 0) throw unknown();
  if (ids.length > 1 && ids[0] !== prefix)
    throw usageError('ambiguous_request', `"${text}" names more than one send or stream`, 'Give more of the message id (missive history list shows them).');
  return ids[0]!;
}
