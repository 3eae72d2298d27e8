/**
 * A `context export` document → a recording (electron/core/mock/from-export.ts), on a hand-built export holding what the
 * integration conversation does not: a message answer, an A2A error, a transport failure, a task's later state seen
 * by GetTask, a push callback, and a second agent.
 */
import { describe, expect, it } from 'vitest';
import { recordingFromExport } from '../../electron/core/mock/from-export.js';
import { contextExport, type ContextExport } from '../../electron/core/mock/export-document.js';

const CONTEXT = 'ctx-1';
let sequence = 0;
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, 0, ms)).toISOString();

const request = (id: string, agent: string, text: string, ms: number, taskId: string | null = null) => ({
  message_id: id,
  agent_alias: agent,
  context_id: CONTEXT,
  task_id: taskId,
  direction: 'request',
  role: 'user',
  content: { messageId: id, contextId: CONTEXT, role: 'ROLE_USER', parts: [{ text }], ...(taskId ? { taskId } : {}) },
  metadata: {},
  created_at: at(ms),
});

const event = (type: string, agent: string | null, ms: number, payload: Record<string, unknown>, taskId: string | null = null) => ({
  sequence: ++sequence,
  event_id: `e${sequence}`,
  timestamp: at(ms),
  event_type: type,
  agent_alias: agent,
  context_id: CONTEXT,
  task_id: taskId,
  payload,
});

function document(): ContextExport {
  sequence = 0;
  return contextExport.parse({
    schema: 'missive.context_export.v1',
    exported_at: at(0),
    context: { context_id: CONTEXT, agent_alias: 'alpha' },
    messages: [
      request('r1', 'alpha', 'hi', 0),
      {
        ...request('a1', 'alpha', 'hello back', 30),
        direction: 'response',
        role: 'agent',
        content: { messageId: 'm-a1', role: 'ROLE_AGENT', parts: [{ text: 'hello back' }] },
      },
      request('r2', 'alpha', 'get task nope', 100),
      request('r3', 'alpha', 'unreachable', 200),
      request('r4', 'beta', 'for beta', 300),
      request('r5', 'alpha', 'start job', 400),
    ],
    tasks: [
      { task_id: 't5', agent_alias: 'alpha', state: 'completed', remote_task: { id: 't5', contextId: CONTEXT, status: { state: 'TASK_STATE_COMPLETED' } } },
    ],
    artifacts: [],
    events: [
      event('a2a.send.started', 'alpha', 0, { message_id: 'r1' }),
      event('a2a.send.completed', 'alpha', 30, { message_id: 'r1', response_shape: 'message', response_message_id: 'a1' }),
      event('a2a.send.started', 'alpha', 100, { message_id: 'r2' }),
      event('a2a.send.failed', 'alpha', 120, {
        message_id: 'r2',
        error: { code: 'missive::protocol::task_not_found', category: 'protocol', message: 'protocol error: the agent has no task with that id' },
      }),
      event('a2a.send.started', 'alpha', 200, { message_id: 'r3' }),
      event('a2a.send.failed', 'alpha', 210, {
        message_id: 'r3',
        error: { code: 'missive::transport::connection_refused', category: 'transport', message: 'refused' },
      }),
      event('a2a.send.started', 'beta', 300, { message_id: 'r4' }),
      event(
        'a2a.send.completed',
        'beta',
        310,
        { message_id: 'r4', response_shape: 'task', task: { task_id: 't4', context_id: CONTEXT, state: 'completed', artifacts: [] } },
        't4',
      ),
      event('a2a.send.started', 'alpha', 400, { message_id: 'r5' }),
      event(
        'a2a.send.completed',
        'alpha',
        420,
        { message_id: 'r5', response_shape: 'task', task: { task_id: 't5', context_id: CONTEXT, state: 'working', artifacts: [] } },
        't5',
      ),
      event('a2a.push.status_update', null, 500, { statusUpdate: { taskId: 't5', contextId: CONTEXT, status: { state: 'TASK_STATE_COMPLETED' } } }, 't5'),
      event('a2a.task.updated', 'alpha', 600, { state: 'completed', remote_state: 'TASK_STATE_COMPLETED', observed_by: 'task get' }, 't5'),
    ],
  });
}

describe('recordingFromExport', () => {
  it("replays the first request's agent: its message answer, its A2A error, a task's later state and push callback; no transport failure", () => {
    const recording = recordingFromExport(document(), 'export x.json');
    expect(recording.agent).toBe('alpha');
    expect(recording.exchanges.map((e) => [e.index, e.text])).toEqual([
      [0, 'hi'],
      [1, 'get task nope'],
      [2, 'start job'],
    ]);
    const [hi, nope, job] = recording.exchanges;
    expect(hi!.events).toEqual([{ offset_ms: 30, kind: 'message', body: { messageId: 'm-a1', role: 'ROLE_AGENT', parts: [{ text: 'hello back' }] } }]);
    expect(nope!.events).toEqual([]);
    expect(nope!.error).toEqual({ code: 'missive::protocol::task_not_found', message: 'the agent has no task with that id', a2a: 'TaskNotFound' });
    // The task as answered (working), then the state GetTask saw later; the push callback apart.
    expect(job!.events.map((e) => [e.offset_ms, e.kind, e.body.status.state])).toEqual([
      [20, 'task', 'TASK_STATE_WORKING'],
      [200, 'status_update', 'TASK_STATE_COMPLETED'],
    ]);
    expect(job!.callbacks).toEqual([
      { offset_ms: 100, kind: 'status_update', body: { taskId: 't5', contextId: CONTEXT, status: { state: 'TASK_STATE_COMPLETED' } } },
    ]);
  });

  it('replays another agent of the context when asked, and names the agents it holds when asked for one it does not', () => {
    expect(recordingFromExport(document(), 'export x.json', { agent: 'beta' }).exchanges.map((e) => e.text)).toEqual(['for beta']);
    expect(() => recordingFromExport(document(), 'export x.json', { agent: 'gamma' })).toThrow(
      'export x.json holds no answered request to agent "gamma" (it holds requests to "alpha", "beta")',
    );
  });
});
