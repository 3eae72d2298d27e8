/** Push config rows as both engines store them, and their decoder. Neither engine owns this module. */
import { storedJson, storedRow } from '../stored-json.js';

export interface PushConfigRow {
  push_config_id: string;
  agent_alias: string;
  task_id: string;
  callback_url: string;
  remote_config: Record<string, unknown>;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

export type RawPushConfig = Omit<PushConfigRow, 'remote_config'> & { remote_config_json: string };
export const pushConfigFromRaw = ({ remote_config_json, ...rest }: RawPushConfig): PushConfigRow => ({
  ...rest,
  remote_config: storedJson(
    remote_config_json,
    storedRow('push_configs', { task_id: rest.task_id, push_config_id: rest.push_config_id }),
    'remote_config_json',
    'object',
  ),
});
