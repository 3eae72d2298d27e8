/**
 * A context's conversation as a thread (`contexts.thread` items, oldest first): what was sent as bubbles on the
 * right, what agents answered on the left, local steps (e.g. a reduce) centred, and each artifact inline with its
 * name, version and text. Non-text parts show as data trees or file chips.
 */
import { JsonTree } from './common';
import { Time } from './Time';

export type ThreadItem = Record<string, unknown> & { kind: 'message' | 'artifact'; at: string; agent_alias: string | null; task_id: string | null };

type Part = Record<string, unknown>;

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const partsOf = (item: ThreadItem): Part[] => {
  const direct = item.parts ?? (item.content as { parts?: unknown } | undefined)?.parts;
  return Array.isArray(direct) ? (direct.filter((p) => p && typeof p === 'object') as Part[]) : [];
};
/** The item's text: its own `text`, else its text parts joined. */
function textOf(item: ThreadItem): string {
  const own = str(item.text);
  if (own) return own;
  return partsOf(item)
    .map((p) => str(p.text) ?? '')
    .filter(Boolean)
    .join('\n');
}

/** Which side a message sits on: what missive sent, what an agent said, or a local step. */
function sideOf(item: ThreadItem): 'out' | 'in' | 'local' {
  const direction = str(item.direction);
  if (direction === 'local') return 'local';
  if (direction === 'request' || (!direction && item.role === 'user')) return 'out';
  return 'in';
}

function NonTextParts({ parts }: { parts: Part[] }) {
  const extra = parts.filter((p) => str(p.text) === null);
  if (extra.length === 0) return null;
  return (
    <div className="thread-parts">
      {extra.map((p, i) => {
        if (p.data !== undefined) return <JsonTree key={i} value={p.data} label="data" />;
        const file = (p.file ?? p) as Part;
        const name = str(file.filename) ?? str(file.name) ?? str(file.url) ?? str(file.uri) ?? 'file';
        const mime = str(file.mediaType) ?? str(file.mimeType) ?? str(file.media_type);
        return (
          <span key={i} className="chip" title={str(file.url) ?? str(file.uri) ?? undefined}>
            file {name}
            {mime ? ` · ${mime}` : ''}
          </span>
        );
      })}
    </div>
  );
}

function MessageBubble({ item }: { item: ThreadItem }) {
  const side = sideOf(item);
  const who = side === 'out' ? `you → ${item.agent_alias ?? 'agent'}` : side === 'local' ? 'local' : (item.agent_alias ?? str(item.role) ?? 'agent');
  const text = textOf(item);
  return (
    <li className={`thread-item bubble ${side}`} data-testid="thread-message" data-side={side}>
      <div className="bubble-head">
        <strong>{who}</strong>
        {str(item.direction) === 'stream_event' ? <span className="chip">stream</span> : null}
        {item.task_id ? <span className="mono muted" title={item.task_id}> task {item.task_id.slice(0, 8)}</span> : null}
        <span className="bubble-time">
          <Time at={item.at} />
        </span>
      </div>
      {text ? <div className="bubble-text">{text}</div> : null}
      <NonTextParts parts={partsOf(item)} />
    </li>
  );
}

function ArtifactCard({ item }: { item: ThreadItem }) {
  const name = str(item.name);
  const id = str(item.artifact_id) ?? '';
  const text = textOf(item);
  const mime = str(item.mime_type) ?? str(item.mime);
  return (
    <li className="thread-item artifact" data-testid="thread-artifact">
      <div className="bubble-head">
        <span className="artifact-tag">artifact</span>
        <strong>{name ?? id}</strong>
        {name ? <span className="mono muted"> {id}</span> : null}
        {item.version !== undefined ? <span className="chip">v{String(item.version)}</span> : null}
        {mime ? <span className="muted"> {mime}</span> : null}
        {item.agent_alias ? <span className="muted"> · from {item.agent_alias}</span> : null}
        <span className="bubble-time">
          <Time at={item.at} />
        </span>
      </div>
      {text ? <pre className="artifact-text">{text}</pre> : <div className="muted">{str(item.summary) ?? 'no text part'}</div>}
      {item.text_truncated === true ? <div className="muted small-text">text shortened; Tasks → export artifacts has all of it</div> : null}
      <NonTextParts parts={partsOf(item)} />
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
