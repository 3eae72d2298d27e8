/**
 * resources/subscribe for a task (`missive://task/<id>`) and its artifacts (`missive://artifact/<task>/<id>`) while
 * the task runs. One timer polls the local journal (never the agent) every POLL_MS for the subscribed tasks and calls
 * `notify(uri)` when what a subscribed URI shows changed: the task's state, status or artifacts; an artifact's version
 * or last chunk. A subscription ends when its task is final (after the notification of that change), when the client
 * unsubscribes, or when the server closes. At most MAX_SUBSCRIPTIONS at once; the journal changes when anything of
 * missive (a wait_task or send_message of this server, `missive task wait`, a push callback) records the task's news.
 */
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { mcpError } from './mcp-error.js';
import type { Core } from '../handle.js';
import { isTerminalTaskState } from '../../../shared/task-states.js';
import { toMissiveError } from '../../../shared/errors.js';
import { notFound, parseMissiveUri, quoted } from './resource-uris.js';

/** How often the subscribed tasks are read from the journal. */
export const POLL_MS = 1000;
/** The most subscriptions at once (all the server's sessions together). */
export const MAX_SUBSCRIPTIONS = 64;

interface Subscription {
  taskId: string;
  /** The artifact watched, or undefined for the task itself. */
  artifactId?: string;
  /** What the URI showed at the last poll; a different value is a change. */
  seen: string;
}

export interface ResourceWatch {
  subscribe(uri: string): Promise<void>;
  unsubscribe(uri: string): void;
  close(): void;
}

/** What a task's journal rows show now: its state and time, and each artifact's version; null when it is gone. */
async function snapshot(core: Core, taskId: string): Promise<{ final: boolean; task: string; artifacts: Map<string, string> } | null> {
  const { conversation } = await core.storage();
  const task = await conversation.getTask(taskId);
  if (!task) return null;
  const artifacts = new Map((await conversation.listArtifactsOfTask(taskId)).map((a) => [a.artifact_id, `${a.version}:${a.last_chunk}:${a.chunks}`]));
  const all = [...artifacts].map(([id, v]) => `${id}=${v}`).join(',');
  return { final: isTerminalTaskState(task.state), task: `${task.state}|${task.remote_state}|${task.updated_at}|${all}`, artifacts };
}

const seenOf = (s: NonNullable<Awaited<ReturnType<typeof snapshot>>>, artifactId?: string): string =>
  artifactId === undefined ? s.task : (s.artifacts.get(artifactId) ?? 'none');

export function createResourceWatch(core: Core, notify: (uri: string) => void): ResourceWatch {
  const subscriptions = new Map<string, Subscription>();
  let timer: NodeJS.Timeout | undefined;
  let polling = false;
  let closed = false;

  const stopIfIdle = () => {
    if (subscriptions.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  async function poll(): Promise<void> {
    if (polling || closed) return;
    polling = true;
    try {
      const byTask = new Map<string, Array<[string, Subscription]>>();
      for (const entry of subscriptions) byTask.set(entry[1].taskId, [...(byTask.get(entry[1].taskId) ?? []), entry]);
      for (const [taskId, entries] of byTask) {
        const now = await snapshot(core, taskId);
        for (const [uri, subscription] of entries) {
          if (closed || subscriptions.get(uri) !== subscription) continue;
          const seen = now ? seenOf(now, subscription.artifactId) : 'gone';
          if (seen !== subscription.seen) {
            subscription.seen = seen;
            notify(uri);
          }
          if (!now || now.final) subscriptions.delete(uri);
        }
      }
    } catch (error) {
      core.warn(`an MCP resource subscription could not read the journal: ${toMissiveError(error).message}`);
    } finally {
      polling = false;
      stopIfIdle();
    }
  }

  return {
    async subscribe(uri) {
      const target = parseMissiveUri(uri);
      if (target.kind !== 'task' && target.kind !== 'artifact')
        throw mcpError(ErrorCode.InvalidParams, `${quoted(uri)} cannot be subscribed to: only a task (missive://task/<id>) and its artifacts change`, {
          uri,
        });
      if (subscriptions.has(uri)) return;
      if (subscriptions.size >= MAX_SUBSCRIPTIONS)
        throw mcpError(ErrorCode.InvalidRequest, `at most ${MAX_SUBSCRIPTIONS} resource subscriptions at once; unsubscribe from one first`, { uri });
      const now = await snapshot(core, target.taskId);
      if (!now) throw notFound(uri, `task ${quoted(target.taskId)} is not in the local journal`);
      // A final task will not change: the subscription is accepted and ends at once, with nothing to notify.
      if (now.final || closed) return;
      const artifactId = target.kind === 'artifact' ? target.artifactId : undefined;
      subscriptions.set(uri, { taskId: target.taskId, artifactId, seen: seenOf(now, artifactId) });
      if (!timer) {
        timer = setInterval(() => void poll(), POLL_MS);
        timer.unref();
      }
    },
    unsubscribe(uri) {
      subscriptions.delete(uri);
      stopIfIdle();
    },
    close() {
      closed = true;
      subscriptions.clear();
      stopIfIdle();
    },
  };
}
