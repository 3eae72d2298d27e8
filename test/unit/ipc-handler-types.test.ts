/**
 * The registry's handler table is typed by the IPC contract (electron/core/ipc/channel-handlers.ts): a handler that
 * answers another shape than its channel's output schema does not compile. The `@ts-expect-error` lines are checked
 * by `npx tsc -p tsconfig.json` (`npm run typecheck`): were the table's typing ever loosened so that such a handler
 * compiled, the unused directive would itself fail the typecheck. The `expectTypeOf` assertions state the same facts
 * for vitest's reader; they too are checked by tsc, not at run time.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { ChannelHandler, ChannelHandlers, HandlerOutput } from '../../electron/core/ipc/channel-handlers.js';
import type { TaskView, WaitResult } from '../../electron/core/tasks/service.js';
import type { ReceiverStats } from '../../electron/core/webhook/receiver.js';
import type { ChannelOutput } from '../../shared/ipc/contract.js';
import { TASK_STATES, type TaskState } from '../../shared/task-states.js';

// Values of the services' declared types, for handlers that are compiled and never called.
declare const taskView: TaskView;
declare const waitResult: WaitResult;
declare const receiverStats: ReceiverStats;

/** Handlers written as the registry writes them (`const handlers: ChannelHandlers = { … }`): these compile. */
export const rightShapes: Pick<ChannelHandlers, 'tasks.get' | 'tasks.wait' | 'webhook.status' | 'auth.deleteSecret'> = {
  'tasks.get': async () => taskView,
  'tasks.wait': async () => waitResult,
  'webhook.status': () => receiverStats,
  'auth.deleteSecret': async () => ({ ok: true }),
};

/** The same handlers answering the wrong shape: each line fails to compile, for the reason its comment names. */
export const wrongShapes: Pick<ChannelHandlers, 'tasks.wait' | 'tasks.get' | 'app.info' | 'auth.setSecret' | 'auth.deleteSecret'> = {
  // A handler switched to another service: a task view has no `outcome`, `exit_code`, `attempts` nor `elapsed_ms`.
  // @ts-expect-error tasks.wait answers a WaitResult, not a TaskView
  'tasks.wait': async () => taskView,
  // A task state outside the one vocabulary (shared/task-states.ts).
  // @ts-expect-error 'done' is no task state
  'tasks.get': async () => ({ ...taskView, task: { ...taskView.task, state: 'done' } }),
  // A field renamed in the service: `database` is missing.
  // @ts-expect-error app.info must answer `database`
  'app.info': () => ({ version: '1', profile: 'default', profiles: [], config: null, state: '/tmp' }),
  // A field of the wrong type.
  // @ts-expect-error session_only is a boolean
  'auth.setSecret': async () => ({ ok: true, session_only: 'yes' }),
  // A literal the contract fixes.
  // @ts-expect-error auth.deleteSecret answers { ok: true }
  'auth.deleteSecret': async () => ({ ok: false }),
};

describe('handler table typed by the IPC contract', () => {
  it('accepts a handler answering its channel output, refuses one answering another channel’s (checked by tsc)', () => {
    expectTypeOf<() => Promise<WaitResult>>().toExtend<ChannelHandler<'tasks.wait'>>();
    expectTypeOf<() => Promise<TaskView>>().not.toExtend<ChannelHandler<'tasks.wait'>>();
    expectTypeOf<() => { listening: boolean }>().not.toExtend<ChannelHandler<'webhook.status'>>();
    // What a handler may answer is what the renderer reads, less the open-ended fields of loose objects.
    expectTypeOf<ChannelOutput<'tasks.wait'>>().toExtend<HandlerOutput<'tasks.wait'>>();
  });

  it('types task states in the contract from the one list in shared/task-states.ts', () => {
    expectTypeOf<ChannelOutput<'tasks.get'>['task']['state']>().toEqualTypeOf<TaskState>();
    expectTypeOf<TaskState>().toEqualTypeOf<(typeof TASK_STATES)[number]>();
  });
});
