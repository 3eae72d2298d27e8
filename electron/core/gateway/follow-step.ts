/**
 * One step of following a task for a console view (`tasks.follow`): a task the journal holds as final is answered as
 * it is, with no call; otherwise the agent is asked once, by the gateway's own means (follow.ts): SubscribeToTask when
 * its card advertises streaming, held open until the task settles, the stream ends or `maxMs` passes; GetTask when it
 * does not, or when the task waits for the user (input or authorization: nothing streams until they answer). The view
 * loops over these steps with backoff (renderer/src/components/follow-loop.ts) until the task is final. Whatever the
 * agent said is journaled as `task get` and the gateway journal it. An error of the agent (unreachable, refused) is
 * thrown: the view then shows the journal's last known state.
 */
import type { Core } from '../handle.js';
import { capabilityView } from '../a2a/capabilities.js';
import { loadCard } from '../agents/discovery.js';
import { currentEventSource } from '../store/event-source.js';
import { call } from '../store/steps.js';
import { answerOfTask } from '../tasks/answer-text.js';
import { localTask, taskAnswer, type TaskView } from '../tasks/service.js';
import { pollTaskOnce } from '../jobs/poll-task.js';
import { isInterruptedTaskState, isTerminalTaskState } from '../../../shared/task-states.js';
import { subscribeTask } from './follow.js';

export interface FollowStep extends TaskView {
  /** How this step learnt the state: the journal (a final task: nothing to ask), a subscription, or one GetTask. */
  via: 'journal' | 'subscription' | 'poll';
  /** The text of the task's latest status message (an interrupted task's question), null when it has none. */
  status_text: string | null;
  /** The task's answer text: its status message, else its artifacts (tasks/answer-text.ts). */
  answer_text: string | null;
}

/** How long a step may hold a subscription open when the caller names no bound. */
export const FOLLOW_STEP_MS = 15_000;

export async function followTaskStep(core: Core, taskId: string, options: { maxMs?: number } = {}): Promise<FollowStep> {
  const before = await localTask(core, taskId);
  let via: FollowStep['via'] = 'journal';
  if (!isTerminalTaskState(before.task.state)) {
    const alias = before.task.agent_alias;
    const streaming = capabilityView((await loadCard(core, alias)).card).streaming;
    if (streaming && !isInterruptedTaskState(before.task.state)) {
      via = 'subscription';
      const bound = AbortSignal.timeout(options.maxMs ?? FOLLOW_STEP_MS);
      try {
        await subscribeTask(core, alias, taskId, bound, currentEventSource());
      } catch (error) {
        // The bound passing is not a failure: nothing happened meanwhile, the view follows on.
        if (!bound.aborted) throw error;
      }
    } else {
      via = 'poll';
      await pollTaskOnce(core, alias, taskId, 'console follow');
    }
  }
  const view = await localTask(core, taskId);
  const stored = await (await core.storage()).read(call('getTaskJson', taskId));
  return {
    ...view,
    source: via === 'journal' ? 'local' : 'remote',
    via,
    status_text: answerOfTask({ status: stored?.status }),
    answer_text: await taskAnswer(core, taskId),
  };
}
