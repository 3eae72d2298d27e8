/**
 * Compose's conversation: the thread of the context the next message goes to (`contexts.thread`), reloaded after
 * every send and when the context changes, scrolled to its newest turn, with "New conversation" to start afresh.
 * Without a context it says that the agent's first answer starts one.
 */
import { useEffect, useRef } from 'react';
import { call } from '../api';
import { useLoad } from '../hooks';
import { ErrorBox } from './common';
import { IdLink } from './IdLink';
import { Thread } from './Thread';

interface ConversationProps {
  agent: string;
  contextId: string;
  /** Goes up after every send, so the thread shows the newest turn. */
  turn: number;
  onNew: () => void;
}

export function Conversation({ agent, contextId, turn, onNew }: ConversationProps) {
  const thread = useLoad(async () => (contextId ? call('contexts.thread', { context: contextId }) : null), [contextId, turn]);
  const box = useRef<HTMLDivElement>(null);
  const items = thread.data?.items ?? [];
  // The newest turn in view: the thread scrolls inside its own box, never the page.
  useEffect(() => {
    if (box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [items.length]);
  const name = thread.data?.context.name;
  return (
    <section className="conversation" aria-label="conversation" data-testid="conversation">
      <div className="conversation-head">
        <strong>Conversation</strong>
        {contextId ? (
          <span className="muted">
            {name ? `${name} · ` : ''}context <IdLink kind="context" id={contextId} />
          </span>
        ) : (
          <span className="muted" data-testid="conversation-new">
            new — {agent ? `${agent}'s` : "the agent's"} first answer starts a context
          </span>
        )}
        <button type="button" className="secondary small" onClick={onNew} disabled={!contextId} data-testid="new-conversation">
          New conversation
        </button>
      </div>
      <div className="conversation-thread" data-testid="conversation-thread" ref={box} tabIndex={0} role="region" aria-label="conversation thread">
        {contextId && thread.error ? <ErrorBox error={thread.error} /> : null}
        {contextId && thread.data ? <Thread items={items} /> : null}
      </div>
    </section>
  );
}
