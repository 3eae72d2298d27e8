/**
 * resources/list, paginated: the agents' cached cards first, then the newest contexts' threads, then the newest tasks,
 * each followed by its artifacts. A page reads only what it lists (a store may hold 100k tasks): the cursor is an
 * opaque position (section, offset, and the place inside a task's artifacts), and the contexts and tasks listed are
 * bounded (the newest LISTED_CONTEXTS and LISTED_TASKS); older ones stay readable through the URI templates.
 */
import { ErrorCode, type Resource } from '@modelcontextprotocol/sdk/types.js';
import { mcpError } from './mcp-error.js';
import type { Core } from '../handle.js';
import type { Storage } from '../store/storage.js';
import type { StoredTask } from '../store/rows/conversation.js';
import { artifactUri, cardUri, taskUri, threadUri } from './resource-uris.js';

/** Resources on one page of resources/list. */
export const PAGE_SIZE = 50;
/** The newest contexts listed (their threads); older ones are read by URI. */
export const LISTED_CONTEXTS = 200;
/** The newest tasks listed (each with its artifacts); older ones are read by URI. */
export const LISTED_TASKS = 1000;

/** Where a page starts: the section (0 cards, 1 threads, 2 tasks), the row in it, and the entry inside a task. */
interface Position {
  section: number;
  offset: number;
  sub: number;
}

/** What a section gives a page: up to `need` resources, and where it goes on (null: nothing more in it). */
type Take = { resources: Resource[]; next: Omit<Position, 'section'> | null };
type Section = (storage: Storage, at: Omit<Position, 'section'>, need: number) => Promise<Take>;

const cards: Section = async (storage, { offset }, need) => {
  const rows = (await storage.agents.list()).filter((row) => row.card !== null);
  const resources = rows.slice(offset, offset + need).map((row): Resource => {
    const name = (row.card?.json as { name?: unknown } | undefined)?.name;
    return {
      uri: cardUri(row.alias),
      name: `${row.alias} card`,
      ...(typeof name === 'string' && name ? { title: `Agent Card of ${row.alias}: ${name}` } : {}),
      description: `The cached Agent Card of agent ${row.alias}`,
      mimeType: 'application/json',
    };
  });
  return { resources, next: offset + need < rows.length ? { offset: offset + need, sub: 0 } : null };
};

const threads: Section = async (storage, { offset }, need) => {
  const end = Math.min(offset + need, LISTED_CONTEXTS);
  const rows = await storage.history.listContexts(Math.min(end + 1, LISTED_CONTEXTS));
  const resources = rows.slice(offset, end).map((c): Resource => ({
    uri: threadUri(c.context_id),
    name: `${c.name ?? c.context_id} thread`,
    description: `Context ${c.context_id}${c.name ? ` (${c.name})` : ''}${c.agent_alias ? ` with ${c.agent_alias}` : ''}: ${c.messages} messages, ${c.tasks} tasks, ${c.state}`,
    mimeType: 'application/json',
  }));
  return { resources, next: rows.length > end ? { offset: end, sub: 0 } : null };
};

async function taskEntries(storage: Storage, task: StoredTask): Promise<Resource[]> {
  const artifacts = await storage.conversation.listArtifactsOfTask(task.task_id);
  return [
    {
      uri: taskUri(task.task_id),
      name: `task ${task.task_id}`,
      description: `Task of ${task.agent_alias}, ${task.state}${artifacts.length ? `, ${artifacts.length} artifact(s)` : ''}`,
      mimeType: 'application/json',
    },
    ...artifacts.map((a): Resource => ({
      uri: artifactUri(task.task_id, a.artifact_id),
      name: a.name ?? a.artifact_id,
      description: `Artifact ${a.artifact_id} of task ${task.task_id} (${task.agent_alias})`,
      ...(a.mime_type ? { mimeType: a.mime_type } : {}),
    })),
  ];
}

const tasks: Section = async (storage, { offset, sub }, need) => {
  const limit = Math.min(need + 1, LISTED_TASKS - offset);
  const rows = limit > 0 ? await storage.conversation.listTasks({ limit, offset }) : [];
  const resources: Resource[] = [];
  for (let i = 0; i < rows.length; i++) {
    const entries = await taskEntries(storage, rows[i]!);
    const from = i === 0 ? sub : 0;
    const room = need - resources.length;
    resources.push(...entries.slice(from, from + room));
    if (from + room < entries.length) return { resources, next: { offset: offset + i, sub: from + room } };
    if (resources.length === need) return { resources, next: i + 1 < rows.length ? { offset: offset + i + 1, sub: 0 } : null };
  }
  return { resources, next: null };
};

const SECTIONS: readonly Section[] = [cards, threads, tasks];

const encodeCursor = (p: Position): string => Buffer.from(`v1:${p.section}:${p.offset}:${p.sub}`).toString('base64url');

function decodeCursor(cursor: string | undefined): Position {
  if (cursor === undefined) return { section: 0, offset: 0, sub: 0 };
  const match = /^v1:(\d):(\d{1,9}):(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const position = match ? { section: Number(match[1]), offset: Number(match[2]), sub: Number(match[3]) } : null;
  if (!position || position.section >= SECTIONS.length)
    throw mcpError(
      ErrorCode.InvalidParams,
      `cursor ${JSON.stringify(cursor.slice(0, 100))} was not issued by this server's resources/list; list again without it`,
    );
  return position;
}

/** One page of resources/list from `cursor` (undefined: the first page), and the cursor of the next when there is more. */
export async function listResources(core: Core, cursor?: string): Promise<{ resources: Resource[]; nextCursor?: string }> {
  let position = decodeCursor(cursor);
  const storage = await core.storage();
  const resources: Resource[] = [];
  while (position.section < SECTIONS.length) {
    const taken = await SECTIONS[position.section]!(storage, position, PAGE_SIZE - resources.length);
    resources.push(...taken.resources);
    if (taken.next) return { resources, nextCursor: encodeCursor({ section: position.section, ...taken.next }) };
    position = { section: position.section + 1, offset: 0, sub: 0 };
  }
  return { resources };
}
