/** A `bcast --json` document as barrier, gather and reduce read it (`--from-bcast FILE|-`): its context and tasks. */
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { contextIdOf } from '../contexts/service.js';
import type { FanOutResult } from './fan-out.js';

export interface BcastDocument {
  contextId: string;
  /** Per member alias: the task it answered with (and the task's state then), or that it answered with a direct message. */
  tasks: Map<string, { taskId: string | null; message: boolean; state: string | null }>;
  /** How many members the bcast reached (status succeeded): the quorum a barrier after it waits for by default, as round's does. */
  reached: number;
  /** Per member alias the bcast did not reach: why (its error message, else its status). */
  unreached: Map<string, string>;
}

/** Reads the envelope (or its data) for `group`; a `contextId` given too must be the document's. */
export function readBcastDocument(doc: unknown, group: string, contextId: string | undefined): BcastDocument {
  const data = ((doc as { data?: unknown })?.data ?? doc) as Partial<FanOutResult> | undefined;
  if (!data || !Array.isArray(data.members) || !data.request?.context_id)
    throw usageError('invalid_bcast_document', '--from-bcast needs the JSON printed by `missive bcast --json`');
  if (data.group !== group) throw usageError('bcast_group_mismatch', `--from-bcast is for group "${data.group}", not "${group}"`);
  if (contextId && contextId !== data.request.context_id)
    throw usageError('bcast_context_mismatch', `--context ${contextId} does not match the bcast context ${data.request.context_id}`);
  const tasks: BcastDocument['tasks'] = new Map();
  const unreached = new Map<string, string>();
  for (const m of data.members)
    if (m.status === 'succeeded' || m.task_id)
      tasks.set(m.alias, { taskId: m.task_id ?? null, message: m.response_shape === 'message', state: m.state ?? null });
    else unreached.set(m.alias, m.error?.message ?? String(m.status));
  const reached = data.members.filter((m) => m.status === 'succeeded').length;
  return { contextId: data.request.context_id, tasks, reached, unreached };
}

/**
 * The context a gather or reduce works on: the `--from-bcast` document's (checked against the group and any
 * `--context`, by id or name), else `--context`; one of them is needed.
 */
export async function collectiveContextId(core: Core, command: string, group: string, input: { contextId?: string; fromBcast?: unknown }): Promise<string> {
  const named = input.contextId ? await contextIdOf(core, input.contextId) : undefined;
  if (input.fromBcast !== undefined) return readBcastDocument(input.fromBcast, group, named).contextId;
  if (!named)
    throw usageError(
      'context_required',
      `${command} needs --context ID or --from-bcast PATH|-`,
      `Pass the context a bcast used, or its \`bcast --json\` output: missive ${command} ${group} --from-bcast b.json`,
    );
  return named;
}
