/**
 * Compose's Answer tab: who answered and how (message or task, its state), the answer's message rendered as Markdown,
 * earlier status messages, each artifact (text, data tree, files with Save), and for a stream its live timeline — all
 * assembled as the events arrive. Under it, what the next message does: continue this context, or reply in the task
 * the agent is waiting on (`input_required`, `auth_required`).
 */
import { stateClass } from './common';
import { IdLink } from './IdLink';
import { Markdown } from './Markdown';
import { ArtifactView } from './ArtifactView';
import { VirtualList } from './VirtualList';
import { isAwaiting, textOfParts, type AnswerModel, type StreamEvent } from './answer-model';
import type { ChannelOutput, SendInputs } from '../../../shared/ipc/contract';

/** One call as Compose made it: what was sent and what came back. */
export type Sent = { agent: string; inputs: SendInputs } & (
  { mode: 'send'; result: ChannelOutput<'messages.send'> } | { mode: 'stream'; result: ChannelOutput<'messages.stream'> }
);

/** Timelines up to this many events render in full; longer ones scroll in a virtual list. */
const FULL_TIMELINE = 300;

function TimelineItem({ e }: { e: StreamEvent }) {
  return (
    <>
      <span className="mono">#{e.sequence}</span> <strong>{e.variant}</strong> {e.state ? <span className={stateClass(e.state)}>{e.state}</span> : null}
      {e.artifact ? <span className="chip">{`${e.artifact.artifact_id} v${e.artifact.version}${e.artifact.last_chunk ? ' ✓' : ''}`}</span> : null}{' '}
      {e.variant === 'artifactUpdate' ? '' : (e.text ?? '')}
    </>
  );
}

export function Timeline({ events }: { events: StreamEvent[] }) {
  if (events.length > FULL_TIMELINE) {
    return (
      <div className="timeline" aria-label="stream events">
        <p className="muted">{events.length} events</p>
        <VirtualList
          testId="timeline"
          items={events}
          rowHeight={24}
          height={240}
          render={(e) => (
            <div className="timeline-row">
              <TimelineItem e={e} />
            </div>
          )}
        />
      </div>
    );
  }
  return (
    <ol className="timeline" data-testid="timeline" aria-label="stream events">
      {events.map((e) => (
        <li key={e.sequence}>
          <TimelineItem e={e} />
        </li>
      ))}
    </ol>
  );
}

/** What the next message will do, as the draft says: which context it continues and which task it replies in. */
export interface NextTurn {
  contextId: string;
  taskId: string;
}

interface AnswerProps {
  agent: string;
  sent: Sent | null;
  model: AnswerModel;
  timeline: StreamEvent[];
  streaming: boolean;
  next: NextTurn;
  onContinue: (contextId: string) => void;
  onReply: (taskId: string, contextId: string | null) => void;
}

function headline(sent: Sent | null, streaming: boolean, events: number): string {
  if (!sent) return streaming ? `streaming… ${events} events so far` : 'waiting for the answer…';
  return sent.mode === 'send' ? `answered with a ${sent.result.response_shape}` : `${sent.result.events} events`;
}

export function Answer({ agent, sent, model, timeline, streaming, next, onContinue, onReply }: AnswerProps) {
  const { taskId, contextId, state } = model;
  const text = textOfParts(model.parts);
  const earlier = model.notes.slice(0, -1);
  const awaiting = isAwaiting(state) && taskId !== null;
  return (
    <div className="card answer-card" data-testid="send-result">
      <div className="answer-head">
        <strong>{sent?.agent ?? agent}</strong> {headline(sent, streaming, timeline.length)}
        {state ? <span className={stateClass(state)}> {state}</span> : null}
        {taskId ? (
          <span className="muted">
            {' '}
            task <IdLink kind="task" id={taskId} />
          </span>
        ) : null}
      </div>
      {earlier.length ? (
        <ol className="answer-notes" data-testid="answer-notes" aria-label="earlier status messages">
          {earlier.map((n, i) => (
            <li key={i}>
              {n.state ? <span className={stateClass(n.state)}>{n.state} </span> : null}
              {textOfParts(n.parts)}
            </li>
          ))}
        </ol>
      ) : null}
      {text ? <Markdown text={text} testId="answer" /> : <div className="answer muted" data-testid="answer" />}
      {model.artifacts.map((a) => (
        <ArtifactView key={a.id} artifact={a} taskId={taskId} streaming={streaming} />
      ))}
      {timeline.length ? <Timeline events={timeline} /> : null}
      {awaiting ? (
        <div className="answer-awaiting" data-testid="answer-awaiting">
          The agent is waiting for you ({state === 'auth_required' ? 'authorization' : 'more input'}).{' '}
          {next.taskId === taskId ? (
            <span>Your next message replies in this task.</span>
          ) : (
            <button type="button" className="link" onClick={() => onReply(taskId, contextId)} data-testid="reply-in-task">
              Reply in this task
            </button>
          )}
        </div>
      ) : null}
      {contextId && sent ? (
        <p className="muted answer-context">
          context <IdLink kind="context" id={contextId} />{' '}
          <button type="button" className="link" onClick={() => onContinue(contextId)} data-testid="continue-context">
            Continue in this context
          </button>
          {next.contextId === contextId ? <span data-testid="continuing"> · your next message does</span> : null}
        </p>
      ) : null}
    </div>
  );
}
