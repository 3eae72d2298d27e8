/**
 * Context continuity: local names for A2A contextIds, forks (parent recorded), closing, and a complete, recursively
 * redacted export. `--context` on send, stream and the collectives accepts a name as well as an id.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../context.js';
import type { Db } from '../store/db.js';
import { redactValue } from '../security/redact.js';
import { writePrivateFile } from '../security/private-files.js';
import { appendEvent } from '../store/repos/events.js';
import { getArtifact } from '../store/repos/conversation.js';
import { closeContextRow, contextRows, getContext, getContextByName, insertContext, listContexts, renameContext, type ContextRow, type ContextSummary } from '../store/repos/contexts.js';
import { firstRequestsOfContext } from '../store/repos/history.js';
import { textOfParts } from '../a2a/part-text.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

function validateName(name: string): string {
  if (!NAME.test(name)) throw usageError('invalid_context_name', `context name "${name}" must be 1–63 letters, digits, '.', '_' or '-', starting with a letter or digit`);
  return name;
}

/** An id or a name → the context id. Unknown values are taken as new ids (A2A context ids are opaque). */
export function resolveContextId(db: Db, ref: string): string {
  if (getContext(db, ref)) return ref;
  return getContextByName(db, ref)?.context_id ?? ref;
}

/** Refuses to continue a context that was closed locally. */
export function assertContextOpen(db: Db, id: string): void {
  refuseClosed(getContext(db, id));
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

/** `resolveContextId` on either store. */
export async function contextIdOf(core: Core, ref: string): Promise<string> {
  return (await findContext(core, ref))?.context_id ?? ref;
}

/** An id or a name → the id of a context to continue (send, stream, a job's send): one closed locally is refused. */
export async function openContextId(core: Core, ref: string): Promise<string> {
  const row = await findContext(core, ref);
  refuseClosed(row);
  return row?.context_id ?? ref;
}

export function requireContext(core: Core, ref: string): ContextRow {
  const db = core.store().db;
  const row = getContext(db, ref) ?? getContextByName(db, ref);
  if (!row) throw usageError('unknown_context', `no context with id or name "${ref}"`, 'List contexts with: missive context list');
  return row;
}

export function createContext(core: Core, options: { name?: string; id?: string } = {}): ContextRow {
  const db = core.store().db;
  const id = options.id ?? randomUUID();
  if (options.name) validateName(options.name);
  if (getContext(db, id)) throw usageError('context_exists', `context ${id} already exists`);
  if (options.name && getContextByName(db, options.name)) throw usageError('context_name_taken', `the name "${options.name}" is already used`);
  core.store().transaction(() => {
    insertContext(db, { id, name: options.name ?? null, parent: null });
    appendEvent(db, { type: 'missive.context.created', contextId: id, payload: { name: options.name ?? null } });
  });
  return getContext(db, id)!;
}

export function nameContext(core: Core, ref: string, name: string): ContextRow {
  const row = requireContext(core, ref);
  validateName(name);
  const db = core.store().db;
  const holder = getContextByName(db, name);
  if (holder && holder.context_id !== row.context_id) throw usageError('context_name_taken', `the name "${name}" is already used by ${holder.context_id}`);
  core.store().transaction(() => {
    renameContext(db, row.context_id, name);
    appendEvent(db, { type: 'missive.context.named', contextId: row.context_id, payload: { name, previous: row.name } });
  });
  return getContext(db, row.context_id)!;
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
function firstMessage(db: Db, contextId: string): { text: string; messageId: string; agent: string | null } | null {
  for (const row of firstRequestsOfContext(db, contextId, 8)) {
    const text = textOfParts((row.content as { parts?: unknown }).parts)?.replace(/\s+/g, ' ').trim();
    if (text) return { text: text.length > CONTEXT_PREVIEW ? `${text.slice(0, CONTEXT_PREVIEW - 1)}…` : text, messageId: row.message_id, agent: row.agent_alias };
  }
  return null;
}

/** The newest contexts with their counts, their agent and the first message as a preview (what a list shows). */
export function listContextSummaries(core: Core, limit = 100): ContextListItem[] {
  const db = core.store().db;
  return listContexts(db, limit).map((c) => {
    const first = c.messages > 0 ? firstMessage(db, c.context_id) : null;
    return { ...c, agent: c.agent_alias ?? first?.agent ?? null, preview: first?.text ?? null, first_message_id: first?.messageId ?? null };
  });
}

export function showContext(core: Core, ref: string) {
  const row = requireContext(core, ref);
  const rows = contextRows(core.store().db, row.context_id);
  return {
    context: row,
    counts: { messages: rows.messages.length, tasks: rows.tasks.length, artifacts: rows.artifacts.length, events: rows.events.length },
    tasks: rows.tasks.map((t) => ({ task_id: t.task_id, agent_alias: t.agent_alias, state: t.state, updated_at: t.updated_at })),
  };
}

export function forkContext(core: Core, ref: string, name?: string): ContextRow {
  const parent = requireContext(core, ref);
  if (name) validateName(name);
  const db = core.store().db;
  if (name && getContextByName(db, name)) throw usageError('context_name_taken', `the name "${name}" is already used`);
  const id = randomUUID();
  core.store().transaction(() => {
    insertContext(db, { id, name: name ?? null, parent: parent.context_id, metadata: { forked_from: parent.context_id } });
    appendEvent(db, { type: 'missive.context.forked', contextId: id, payload: { parent_context_id: parent.context_id, name: name ?? null } });
  });
  return getContext(db, id)!;
}

export function closeContext(core: Core, ref: string): ContextRow {
  const row = requireContext(core, ref);
  const db = core.store().db;
  core.store().transaction(() => {
    closeContextRow(db, row.context_id);
    appendEvent(db, { type: 'missive.context.closed', contextId: row.context_id, payload: {} });
  });
  return getContext(db, row.context_id)!;
}

/** The context with its messages, tasks, artifacts (parts included) and events, redacted all the way down. */
export function exportContext(core: Core, ref: string, options: { output?: string; force?: boolean; cwd: string }) {
  const row = requireContext(core, ref);
  const db = core.store().db;
  const rows = contextRows(db, row.context_id);
  const artifacts = rows.artifacts.map((a) => ({ ...a, content: getArtifact(db, String(a.task_id), String(a.artifact_id))?.content ?? a.content }));
  const document = redactValue({ schema: 'missive.context_export.v1', exported_at: new Date().toISOString(), context: row, ...rows, artifacts });
  if (!options.output) return { document, path: null };
  const path = resolve(options.cwd, options.output);
  if (existsSync(path) && !options.force) throw usageError('output_exists', `${path} already exists; nothing was written`, 'Pass --force to overwrite it.');
  writePrivateFile(path, `${JSON.stringify(document, null, 2)}\n`);
  appendEvent(db, { type: 'missive.context.exported', contextId: row.context_id, payload: { path, messages: rows.messages.length, tasks: rows.tasks.length, events: rows.events.length } });
  return { document: null, path, counts: { messages: rows.messages.length, tasks: rows.tasks.length, artifacts: artifacts.length, events: rows.events.length } };
}
