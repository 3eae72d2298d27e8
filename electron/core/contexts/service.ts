/**
 * Context continuity: local names for A2A contextIds, forks (parent recorded), closing, and a complete, recursively
 * redacted export. `--context` on send, stream and the collectives accepts a name as well as an id.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { redactValue } from '../security/redact.js';
import { writePrivateFile } from '../security/private-files.js';
import type { Repositories, Storage } from '../store/storage.js';
import type { ContextRow, ContextSummary } from '../store/rows/contexts.js';
import { textOfParts } from '../a2a/part-text.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

function validateName(name: string): string {
  if (!NAME.test(name))
    throw usageError('invalid_context_name', `context name "${name}" must be 1–63 letters, digits, '.', '_' or '-', starting with a letter or digit`);
  return name;
}

const refuseClosed = (row: ContextRow | undefined): void => {
  if (row && row.state !== 'open') {
    throw usageError('context_closed', `context ${row.name ?? row.context_id} is ${row.state}`, `Fork it to continue: missive context fork ${row.context_id}`);
  }
};

/** The known context an id or a name names, on either store. */
async function findContext(core: Core, ref: string): Promise<ContextRow | undefined> {
  const { conversation } = await core.storage();
  return (await conversation.getContext(ref)) ?? (await conversation.getContextByName(ref));
}

/** An id or a name → the context id (unknown values are taken as new ids), on either store. */
export async function contextIdOf(core: Core, ref: string): Promise<string> {
  return (await findContext(core, ref))?.context_id ?? ref;
}

/** An id or a name → the id of a context to continue (send, stream, a job's send): one closed locally is refused. */
export async function openContextId(core: Core, ref: string): Promise<string> {
  const row = await findContext(core, ref);
  refuseClosed(row);
  return row?.context_id ?? ref;
}

const known = (ref: string, row: ContextRow | undefined): ContextRow => {
  if (!row) throw usageError('unknown_context', `no context with id or name "${ref}"`, 'List contexts with: missive context list');
  return row;
};

/** The known context an id or a name names, on either store; `unknown_context` when there is none. */
export async function knownContext(core: Core, ref: string): Promise<ContextRow> {
  return known(ref, await findContext(core, ref));
}

/** Refuses a name another context holds (the store's unique key backs it: another host may take it meanwhile). */
async function refuseTakenName(tx: Repositories, name: string | undefined, self?: string): Promise<void> {
  const holder = name ? await tx.conversation.getContextByName(name) : undefined;
  if (holder && holder.context_id !== self)
    throw usageError('context_name_taken', `the name "${name}" is already used${self ? ` by ${holder.context_id}` : ''}`);
}

export async function createContext(core: Core, options: { name?: string; id?: string } = {}): Promise<ContextRow> {
  const storage = await core.storage();
  const id = options.id ?? randomUUID();
  if (options.name) validateName(options.name);
  return storage.transaction(async (tx) => {
    if (await tx.conversation.getContext(id)) throw usageError('context_exists', `context ${id} already exists`);
    await refuseTakenName(tx, options.name);
    await tx.history.insertContext({ id, name: options.name ?? null, parent: null });
    await tx.journal.append({ type: 'missive.context.created', contextId: id, payload: { name: options.name ?? null } });
    return (await tx.conversation.getContext(id))!;
  });
}

export async function nameContext(core: Core, ref: string, name: string): Promise<ContextRow> {
  const row = await knownContext(core, ref);
  validateName(name);
  return (await core.storage()).transaction(async (tx) => {
    await refuseTakenName(tx, name, row.context_id);
    await tx.history.renameContext(row.context_id, name);
    await tx.journal.append({ type: 'missive.context.named', contextId: row.context_id, payload: { name, previous: row.name } });
    return (await tx.conversation.getContext(row.context_id))!;
  });
}

/** A context's first message text as a one-line preview of at most this many characters. */
export const CONTEXT_PREVIEW = 120;

export interface ContextListItem extends ContextSummary {
  /** The agent the context talks to: the one it was opened with, else the first message's. */
  agent: string | null;
  /** The first message's text on one line (shortened), null when no message has text. */
  preview: string | null;
  /** The local id of that first message (History opens it). */
  first_message_id: string | null;
}

/** The first request's text (among the first few), on one line and shortened, with its message id; null when none has text. */
async function firstMessage(storage: Storage, contextId: string): Promise<{ text: string; messageId: string; agent: string | null } | null> {
  for (const row of await storage.history.firstRequestsOfContext(contextId, 8)) {
    const text = textOfParts((row.content as { parts?: unknown }).parts)
      ?.replace(/\s+/g, ' ')
      .trim();
    if (text)
      return { text: text.length > CONTEXT_PREVIEW ? `${text.slice(0, CONTEXT_PREVIEW - 1)}…` : text, messageId: row.message_id, agent: row.agent_alias };
  }
  return null;
}

/** Previews read at once (a shared store answers them on as many pooled connections). */
const PREVIEWS_AT_ONCE = 8;

/** The newest contexts with their counts, their agent and the first message as a preview (what a list shows). */
export async function listContextSummaries(core: Core, limit = 100): Promise<ContextListItem[]> {
  const storage = await core.storage();
  const contexts = await storage.history.listContexts(limit);
  const item = async (c: ContextSummary): Promise<ContextListItem> => {
    const first = c.messages > 0 ? await firstMessage(storage, c.context_id) : null;
    return { ...c, agent: c.agent_alias ?? first?.agent ?? null, preview: first?.text ?? null, first_message_id: first?.messageId ?? null };
  };
  const items: ContextListItem[] = [];
  for (let i = 0; i < contexts.length; i += PREVIEWS_AT_ONCE) items.push(...(await Promise.all(contexts.slice(i, i + PREVIEWS_AT_ONCE).map(item))));
  return items;
}

export async function showContext(core: Core, ref: string) {
  const row = await knownContext(core, ref);
  const rows = await (await core.storage()).history.contextRows(row.context_id);
  return {
    context: row,
    counts: { messages: rows.messages.length, tasks: rows.tasks.length, artifacts: rows.artifacts.length, events: rows.events.length },
    tasks: rows.tasks.map((t) => ({ task_id: t.task_id, agent_alias: t.agent_alias, state: t.state, updated_at: t.updated_at })),
  };
}

export async function forkContext(core: Core, ref: string, name?: string): Promise<ContextRow> {
  const parent = await knownContext(core, ref);
  if (name) validateName(name);
  const id = randomUUID();
  return (await core.storage()).transaction(async (tx) => {
    await refuseTakenName(tx, name);
    await tx.history.insertContext({ id, name: name ?? null, parent: parent.context_id, metadata: { forked_from: parent.context_id } });
    await tx.journal.append({ type: 'missive.context.forked', contextId: id, payload: { parent_context_id: parent.context_id, name: name ?? null } });
    return (await tx.conversation.getContext(id))!;
  });
}

export async function closeContext(core: Core, ref: string): Promise<ContextRow> {
  const row = await knownContext(core, ref);
  return (await core.storage()).transaction(async (tx) => {
    await tx.history.closeContextRow(row.context_id);
    await tx.journal.append({ type: 'missive.context.closed', contextId: row.context_id, payload: {} });
    return (await tx.conversation.getContext(row.context_id))!;
  });
}

/** The context with its messages, tasks, artifacts (parts included) and events, redacted all the way down. */
export async function exportContext(core: Core, ref: string, options: { output?: string; force?: boolean; cwd: string }) {
  const row = await knownContext(core, ref);
  const storage = await core.storage();
  const rows = await storage.history.contextRows(row.context_id);
  const artifacts: Array<(typeof rows.artifacts)[number]> = [];
  for (const a of rows.artifacts)
    artifacts.push({ ...a, content: (await storage.conversation.getArtifact(String(a.task_id), String(a.artifact_id)))?.content ?? a.content });
  const document = redactValue({ schema: 'missive.context_export.v1' as const, exported_at: new Date().toISOString(), context: row, ...rows, artifacts });
  if (!options.output) return { document, path: null };
  const path = resolve(options.cwd, options.output);
  if (existsSync(path) && !options.force) throw usageError('output_exists', `${path} already exists; nothing was written`, 'Pass --force to overwrite it.');
  writePrivateFile(path, `${JSON.stringify(document, null, 2)}\n`);
  await storage.journal.append({
    type: 'missive.context.exported',
    contextId: row.context_id,
    payload: { path, messages: rows.messages.length, tasks: rows.tasks.length, events: rows.events.length },
  });
  return {
    document: null,
    path,
    counts: { messages: rows.messages.length, tasks: rows.tasks.length, artifacts: artifacts.length, events: rows.events.length },
  };
}
