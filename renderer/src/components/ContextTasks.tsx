/**
 * The tasks of a context that are not final, each followed (FollowedTask) above the context's thread: their state, the
 * agent's question and a reply box when one waits for the user, Refresh, Wait and Cancel. `onChanged` is called when
 * one of them changes state (the thread may then have more to show).
 */
import { useRef } from 'react';
import { call } from '../api';
import { useLoad } from '../hooks';
import { FollowedTask } from './FollowedTask';
import type { FollowView } from './use-followed-task';
import { isTerminalTaskState } from '../../../shared/task-states';

export function ContextTasks({ contextId, onChanged }: { contextId: string; onChanged?: () => void }) {
  const tasks = useLoad(() => call('tasks.list', { contextId, pageSize: 50 }), [contextId]);
  const states = useRef(new Map<string, string>());
  const open = (tasks.data?.tasks ?? []).filter((t) => !isTerminalTaskState(t.state));
  if (!open.length) return null;
  const seen = (view: FollowView) => {
    const before = states.current.get(view.task.task_id);
    states.current.set(view.task.task_id, view.task.state);
    if (before !== undefined && before !== view.task.state) onChanged?.();
  };
  return (
    <div className="context-tasks" data-testid="context-tasks" role="group" aria-label="tasks in progress">
      {open.map((t) => (
        <FollowedTask key={t.task_id} taskId={t.task_id} initialState={t.state} onChange={seen} />
      ))}
    </div>
  );
}
