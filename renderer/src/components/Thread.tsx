/**
 * A context's conversation as a thread (`contexts.thread` items, oldest first): what was sent as bubbles on the
 * right, what agents answered on the left, local steps (e.g. a reduce) centred, and each artifact inline with its
 * name, version and text. Non-text parts show as data trees or file chips.
 */
import { JsonTree, jsonAt } from './common';
import { Time } from './Time';
import { IdLink } from './IdLink';
import type { ChannelOutput } from '../../../shared/ipc/contract';

export type ThreadItem = ChannelOutput<'contexts.thread'>['items'][number];
type ThreadMessage = Extract<ThreadItem, { kind: 'message' }>;
type ThreadArtifact = Extract<ThreadItem, { kind: 'artifact' }>;
type Part = ThreadMessage['parts'][number];

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
/** The message's text: its own `text`, else its text parts joined. */
function textOf(item: ThreadMessage): string {
  const own = str(item.text);
  if (own) return own;
  return item.parts
    .map((p) => str(p.text) ?? '')
    .filter(Boolean)
    .join('\n');
}

/** Which side a message sits on: what missive sent, what an agent said, or a local step. */
function sideOf(item: ThreadMessage): 'out' | 'in' | 'local' {
  if (item.direction === 'local') return 'local';
  if (item.direction === 'request' || (!item.direction && item.role === 'user')) return 'out';
  return 'in';
}

function NonTextParts({ parts }: { parts: Part[] }) {
  const extra = parts.filter((p) => str(p.text) === null);
  if (extra.length === 0) return null;
  return (
    <div className="thread-parts">
      {extra.map((p, i) => {
        if (p.data !== undefined) return <JsonTree key={i} value={p.data} label="data" />;
        // v1.0 parts carry the file's fields themselves; v0.3 parts nest them under `file`.
        const file = p.file ?? p;
        const at = (key: string) => str(jsonAt(file, key));
        const name = at('filename') ?? at('name') ?? at('url') ?? at('uri') ?? 'file';
        const mime = at('mediaType') ?? at('mimeType') ?? at('media_type');
        return (
          <span key={i} className="chip" title={at('url') ?? at('uri') ?? undefined}>
            file {name}
            {mime ? ` · ${mime}` : ''}
          </span>
        );
      })}
    </div>
  );
}

function MessageBubble({ item }: { item: ThreadMessage }) {
  const side = sideOf(item);
  const who = side === 'out' ? `you → ${item.agent_alias ?? 'agent'}` : side === 'local' ? 'local' : (item.agent_alias ?? str(item.role) ?? 'agent');
  const text = textOf(item);
  return (
    <li className={`thread-item bubble ${side}`} data-testid="thread-message" data-side={side}>
      <div className="bubble-head">
        <strong>{who}</strong>
        {item.direction === 'stream_event' ? <span className="chip">stream</span> : null}
        {item.task_id ? (
          <span className="muted">
            {' '}
            task <IdLink kind="task" id={item.task_id} label={item.task_id.slice(0, 8)} />
          </span>
        ) : null}
        <span className="bubble-time">
          <Time at={item.at} />
        </span>
      </div>
      {text ? <div className="bubble-text">{text}</div> : null}
      <NonTextParts parts={item.parts} />
    </li>
  );
}

function ArtifactCard({ item }: { item: ThreadArtifact }) {
  const name = str(item.name);
  const id = item.artifact_id;
  const text = item.text;
  const mime = str(item.mime_type);
  return (
    <li className="thread-item artifact" data-testid="thread-artifact">
      <div className="bubble-head">
        <span className="artifact-tag">artifact</span>
        <strong>{name ?? id}</strong>
        {name ? <span className="mono muted"> {id}</span> : null}
        <span className="chip">v{item.version}</span>
        {mime ? <span className="muted"> {mime}</span> : null}
        {item.agent_alias ? <span className="muted"> · from {item.agent_alias}</span> : null}
        <span className="bubble-time">
          <Time at={item.at} />
        </span>
      </div>
      {text ? (
        <pre className="artifact-text" tabIndex={0}>
          {text}
        </pre>
      ) : (
        <div className="muted">{str(item.summary) ?? 'no text part'}</div>
      )}
      {item.text_truncated ? <div className="muted small-text">text shortened; Tasks → export artifacts has all of it</div> : null}
    </li>
  );
}

export function Thread({ items }: { items: ThreadItem[] }) {
  if (items.length === 0) return <p className="muted">Nothing was said in this context yet.</p>;
  return (
    <ol className="thread" data-testid="thread">
      {items.map((item, i) => (item.kind === 'artifact' ? <ArtifactCard key={i} item={item} /> : <MessageBubble key={i} item={item} />))}
    </ol>
  );
}
