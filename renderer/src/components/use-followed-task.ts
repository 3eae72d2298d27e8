/**
 * `useFollowedTask(taskId)`: follows a task while the component that shows it is mounted, until the task is final
 * (follow-loop.ts over `tasks.follow`). It keeps the last view the core answered, when missive last heard of the task,
 * and why following fails when it does; `refresh()` asks again at once (and starts a loop that had given up), `show()`
 * puts a view an action brought (Wait, Cancel, a reply) in place and follows on from it. Unmounting stops the loop.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { call } from '../api';
import { toReport } from '../hooks';
import { runFollowLoop, type FollowEnd } from './follow-loop';
import type { ChannelOutput, IpcError } from '../../../shared/ipc/contract';
import { isTerminalTaskState } from '../../../shared/task-states';

export type FollowView = ChannelOutput<'tasks.follow'>;
/** What an action answers (tasks.get, tasks.cancel, tasks.wait): a view without the question and answer text. */
export type TaskViewLike = ChannelOutput<'tasks.get'>;

export interface FollowedTask {
  /** The last view known: from the core's last answer, else the journal's (a failed first step reads it). */
  view: FollowView | null;
  /** When missive last heard of the task (ISO): the later of the task's last change and the last answer. */
  heardAt: string | null;
  /** A step is in flight. */
  following: boolean;
  /** Why the last step failed, while following fails; null once a step works again. */
  failure: IpcError | null;
  /** How the loop ended (null while it runs). */
  ended: FollowEnd | null;
  refresh(): void;
  /** Puts a view an action brought in place; the loop starts again from it, unless it is final. */
  show(view: TaskViewLike): void;
}

const later = (a: string | null, b: string | null) => (!a ? b : !b ? a : Date.parse(a) >= Date.parse(b) ? a : b);

export function useFollowedTask(taskId: string): FollowedTask {
  const [view, setView] = useState<FollowView | null>(null);
  const [heardAt, setHeardAt] = useState<string | null>(null);
  const [following, setFollowing] = useState(false);
  const [failure, setFailure] = useState<IpcError | null>(null);
  const [ended, setEnded] = useState<FollowEnd | null>(null);
  /** Goes up to start the loop again (Refresh, or a view an action brought). */
  const [generation, setGeneration] = useState(0);

  /** Whether any view is known yet (read by the loop's failure handler). */
  const known = useRef(false);
  known.current = view !== null;
  /** How many steps answered: a failure read late is not shown over a later answer. */
  const answered = useRef(0);
  /** A final view an action brought: the loop has nothing left to follow and does not start again. */
  const shownFinal = useRef(false);

  useEffect(() => {
    if (shownFinal.current) {
      shownFinal.current = false;
      setEnded('final');
      return;
    }
    const stop = new AbortController();
    const { signal } = stop;
    setEnded(null);
    void runFollowLoop<FollowView>({
      signal,
      step: async () => {
        setFollowing(true);
        try {
          return await call('tasks.follow', { taskId });
        } finally {
          if (!signal.aborted) setFollowing(false);
        }
      },
      isFinal: (v) => isTerminalTaskState(v.task.state),
      subscribed: (v) => v.via === 'subscription',
      keyOf: (v) => `${v.task.state} ${v.task.updated_at}`,
      onValue: (v) => {
        answered.current++;
        setView(v);
        setFailure(null);
        setHeardAt((h) => later(later(h, v.task.updated_at), new Date().toISOString()));
      },
      onFailure: (error) => {
        const report = toReport(error);
        if (known.current) return setFailure(report);
        // With nothing known yet, the journal's view is the last known state: it is read before the failure is
        // shown, so "last known" always says when (unless a step answered meanwhile: then there is no failure).
        const answeredBefore = answered.current;
        void call('tasks.get', { taskId })
          .then(
            (local) => !signal.aborted && setView((v) => v ?? { ...local, via: 'journal', status_text: null, answer_text: null }),
            () => undefined,
          )
          .then(() => !signal.aborted && answered.current === answeredBefore && setFailure(report));
      },
    }).then((end) => {
      if (!signal.aborted) setEnded(end);
    });
    return () => stop.abort();
  }, [taskId, generation]);

  const refresh = useCallback(() => setGeneration((g) => g + 1), []);
  const show = useCallback((next: TaskViewLike) => {
    // An action's view carries no question or answer text: the loop's next step brings them (a final task keeps the last).
    setView((v) => ({ ...next, via: next.source === 'remote' ? 'poll' : 'journal', status_text: v?.status_text ?? null, answer_text: v?.answer_text ?? null }));
    answered.current++;
    setFailure(null);
    setHeardAt(new Date().toISOString());
    shownFinal.current = isTerminalTaskState(next.task.state);
    setGeneration((g) => g + 1);
  }, []);
  return { view, heardAt, following, failure, ended, refresh, show };
}
