/**
 * A task as every view shows it (Compose's answer, the Tasks detail, History's detail, the Contexts thread): its
 * state, followed until it is final (use-followed-task.ts), with Refresh, and Wait and Cancel while it is not final.
 * While following fails it says "last known <state> <age>" and why. A task waiting for the user (`input_required`,
 * `auth_required`) shows the agent's question and, unless the view has a reply box of its own (Compose), a reply box:
 * the reply goes to the same task in the same context.
 */
import { useEffect, useRef, useState } from 'react';
import { call } from '../api';
import { useAction } from '../hooks';
import { ErrorBox, Field, stateClass } from './common';
import { Time } from './Time';
import { useFollowedTask, type FollowView } from './use-followed-task';
import { isInterruptedTaskState, isTerminalTaskState } from '../../../shared/task-states';
import '../followed.css';

interface FollowedTaskProps {
  taskId: string;
  /** The state the view already knows (shown until the first answer). */
  initialState?: string | null;
  /** Offer a reply box when the agent asks (false: the view replies by its own means). */
  reply?: boolean;
  /** Each new view of the task (the caller may reload what it shows around it). */
  onChange?: (view: FollowView) => void;
}

export function FollowedTask({ taskId, initialState = null, reply = true, onChange }: FollowedTaskProps) {
  const followed = useFollowedTask(taskId);
  const { view, failure, following, ended, heardAt, refresh, show } = followed;
  const changed = useRef(onChange);
  changed.current = onChange;
  useEffect(() => {
    if (view) changed.current?.(view);
  }, [view]);

  const wait = useAction(async () => {
    const waited = await call('tasks.wait', { taskId });
    show(waited);
    return waited.outcome;
  });
  const cancel = useAction(async () => {
    const cancelled = await call('tasks.cancel', { taskId });
    show(cancelled);
    return cancelled.task.state;
  });
  // A final task never changes: Refresh asks its agent once (GetTask) rather than following again.
  const ask = useAction(async () => {
    const asked = await call('tasks.get', { taskId, remote: true });
    show(asked);
    return asked.task.state;
  });
  const [text, setText] = useState('');
  const sendReply = useAction(async () => {
    if (!view) return null;
    const sent = await call('messages.send', {
      agent: view.task.agent_alias,
      inputs: { text, taskId, ...(view.task.context_id ? { contextId: view.task.context_id } : {}) },
    });
    setText('');
    refresh();
    return sent.task?.state ?? null;
  });

  const state = view?.task.state ?? initialState ?? 'unknown';
  const final = isTerminalTaskState(state);
  const awaiting = isInterruptedTaskState(state);
  return (
    <div className="followed-task" data-testid="followed-task" data-task-id={taskId} data-state={state}>
      <p className="followed-status">
        <span className={stateClass(state)} data-testid="followed-state">
          {state}
        </span>{' '}
        {final ? (
          <span className="muted" data-testid="followed-source">
            final ·{' '}
            {view?.source === 'remote' ? `as the agent reported it (${view.via === 'subscription' ? 'SubscribeToTask' : 'GetTask'})` : 'from the journal'}
          </span>
        ) : failure ? (
          <span className="followed-failing" data-testid="followed-last-known" title={failure.message}>
            last known {state} <Time at={heardAt ?? view?.task.updated_at} show="age" fallback="at an unknown time" /> · following fails: {failure.message}{' '}
            <span className="error-code">{failure.code}</span>
            {ended === 'gave_up' ? ' · stopped trying: Refresh to try again' : ' · trying again'}
          </span>
        ) : (
          <span className="muted" data-testid="followed-live" role="status">
            {following || !view ? 'following…' : view.via === 'subscription' ? 'following (subscribed)' : 'following (polling)'}
          </span>
        )}
      </p>
      <div className="row followed-actions">
        <button
          type="button"
          className="small"
          onClick={() => (final ? void ask.run() : refresh())}
          disabled={ask.busy}
          data-testid="followed-refresh"
          aria-label={`Refresh task ${taskId}`}
        >
          Refresh
        </button>
        {!final ? (
          <>
            <button
              type="button"
              className="small"
              onClick={() => void wait.run()}
              disabled={wait.busy}
              data-testid="followed-wait"
              aria-label={wait.busy ? undefined : `Wait for task ${taskId}`}
            >
              {wait.busy ? 'Waiting…' : 'Wait'}
            </button>
            <button
              type="button"
              className="small danger"
              onClick={() => void cancel.run()}
              disabled={cancel.busy}
              data-testid="followed-cancel"
              aria-label={cancel.busy ? undefined : `Cancel task ${taskId}`}
            >
              {cancel.busy ? 'Cancelling…' : 'Cancel'}
            </button>
          </>
        ) : null}
        {wait.data ? (
          <span className="muted" data-testid="wait-outcome">
            waited: {wait.data}
          </span>
        ) : null}
      </div>
      {cancel.error ? (
        <div data-testid="followed-cancel-error">
          <p>Cancel failed:</p>
          <ErrorBox error={cancel.error} />
        </div>
      ) : null}
      <ErrorBox error={wait.error ?? ask.error} />
      {awaiting ? (
        <div className="followed-question" data-testid="followed-question">
          <p>
            The agent is waiting for {state === 'auth_required' ? 'authorization' : 'more input'}
            {view?.status_text ? ':' : '.'}
          </p>
          {view?.status_text ? <blockquote data-testid="followed-question-text">{view.status_text}</blockquote> : null}
          {reply ? (
            <form
              className="row"
              onSubmit={(e) => {
                e.preventDefault();
                if (text.trim()) void sendReply.run();
              }}
            >
              <Field label="Reply in this task">
                <textarea name="task-reply" value={text} onChange={(e) => setText(e.target.value)} rows={2} />
              </Field>
              <button type="submit" disabled={sendReply.busy || !text.trim() || !view} data-testid="followed-send-reply">
                {sendReply.busy ? 'Sending…' : 'Send reply'}
              </button>
            </form>
          ) : null}
          <ErrorBox error={sendReply.error} />
        </div>
      ) : null}
    </div>
  );
}
