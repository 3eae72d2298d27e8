/** The message records `events replay` reads back, and their decoder. Neither engine owns this module. */
import { storedJson, storedRow } from '../stored-json.js';

export interface MessageRecord {
  message_id: string;
  agent_alias: string | null;
  context_id: string | null;
  task_id: string | null;
  direction: string;
  content: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/** A message row as the store returns it (MESSAGE_RECORD_COLUMNS). */
export interface RawMessageRecord extends Omit<MessageRecord, 'content' | 'metadata'> {
  content_json: string;
  metadata_json: string;
}

/** A message row decoded (SQLite's and PostgreSQL's: postgres/repos/conversation.ts). */
export const messageRecordOf = ({ content_json, metadata_json, ...rest }: RawMessageRecord): MessageRecord => {
  const at = storedRow('messages', { message_id: rest.message_id });
  return { ...rest, content: storedJson(content_json, at, 'content_json', 'object'), metadata: storedJson(metadata_json, at, 'metadata_json', 'object') };
};

export const MESSAGE_RECORD_COLUMNS = 'message_id, agent_alias, context_id, task_id, direction, content_json, metadata_json';
