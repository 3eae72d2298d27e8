/**
 * One artifact of an answer: its name, version and progress, then each part — text as written (Markdown when the
 * agent says `text/markdown`), data as a collapsible JSON tree, files as a line naming the file (an inline image is
 * shown). "Save…" writes the task's artifacts into a directory the user picks (`artifacts.export`: one file per part
 * and a manifest), from the journal, so a streamed file is saved whole.
 */
import { useState } from 'react';
import { call } from '../api';
import { useAction } from '../hooks';
import { ErrorBox, JsonTree } from './common';
import { Markdown } from './Markdown';
import type { AnswerArtifact, Part } from './answer-model';

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const isFile = (p: Part) => p.url !== undefined || p.raw !== undefined || p.raw_bytes !== undefined || p.file !== undefined;

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** An inline picture for a raster image's bytes; null for anything else. */
function imageOf(p: Part, mime: string | null): string | null {
  const raw = str(p.raw);
  return raw && mime && /^image\/(png|jpeg|gif|webp)$/.test(mime) && raw.length < 4_000_000 ? `data:${mime};base64,${raw}` : null;
}

function FilePart({ part }: { part: Part }) {
  // v1.0 parts carry the file's fields themselves; v0.3 parts nest them under `file`.
  const f = (typeof part.file === 'object' && part.file !== null ? part.file : part) as Part;
  const mime = str(f.mediaType) ?? str(f.mimeType);
  const name = str(f.filename) ?? str(f.name) ?? str(f.url) ?? str(f.uri) ?? 'file';
  const bytes = typeof f.raw === 'string' ? Math.floor((f.raw.length * 3) / 4) : typeof f.raw_bytes === 'number' ? f.raw_bytes : null;
  const image = imageOf(f, mime);
  return (
    <div className="artifact-file" data-testid="artifact-file">
      <span className="chip">file</span> <strong>{name}</strong>
      {mime ? <span className="muted"> · {mime}</span> : null}
      {bytes !== null ? <span className="muted"> · {size(bytes)}</span> : null}
      {str(f.url) && name !== f.url ? <span className="mono muted"> · {String(f.url)}</span> : null}
      {image ? <img className="artifact-image" src={image} alt={name} /> : null}
    </div>
  );
}

function PartView({ part }: { part: Part }) {
  if (part.data !== undefined) {
    return (
      <div className="artifact-data" data-testid="artifact-data">
        <JsonTree value={part.data} label="data" />
      </div>
    );
  }
  if (isFile(part)) return <FilePart part={part} />;
  const text = typeof part.text === 'string' ? part.text : null;
  if (text === null) return <div className="muted">a part of unknown kind</div>;
  return part.mediaType === 'text/markdown' ? (
    <Markdown text={text} />
  ) : (
    <pre className="artifact-text" tabIndex={0}>
      {text}
    </pre>
  );
}

function SaveFiles({ taskId }: { taskId: string }) {
  const [note, setNote] = useState<string | null>(null);
  const save = useAction(async () => {
    setNote(null);
    const { path } = await call('dialogs.chooseDirectory', { title: 'Save the artifacts into…' });
    if (!path) return setNote('No directory chosen; nothing was saved.');
    const done = await call('artifacts.export', { taskId, outputDir: path });
    setNote(`Saved ${done.files.length} file(s) to ${done.directory}: ${done.files.map((f) => f.file).join(', ')}`);
  });
  return (
    <span className="artifact-save">
      <button type="button" className="secondary small" disabled={save.busy} onClick={() => void save.run()} data-testid="artifact-save">
        Save…
      </button>
      <span role="status" className="muted small-text" data-testid="artifact-save-status">
        {note ?? ''}
      </span>
      <ErrorBox error={save.error} />
    </span>
  );
}

export function ArtifactView({ artifact, taskId, streaming }: { artifact: AnswerArtifact; taskId: string | null; streaming: boolean }) {
  const hasFile = artifact.parts.some(isFile);
  return (
    <section className="answer-artifact" data-testid="answer-artifact" data-artifact-id={artifact.id} aria-label={`artifact ${artifact.name ?? artifact.id}`}>
      <div className="bubble-head">
        <span className="artifact-tag">artifact</span>
        <strong>{artifact.name ?? artifact.id}</strong>
        {artifact.name ? <span className="mono muted">{artifact.id}</span> : null}
        <span className="chip">v{artifact.version}</span>
        {!artifact.complete && streaming ? <span className="muted">receiving…</span> : null}
        {hasFile && taskId ? <SaveFiles taskId={taskId} /> : null}
      </div>
      {artifact.parts.length ? artifact.parts.map((p, i) => <PartView key={i} part={p} />) : <div className="muted">empty</div>}
    </section>
  );
}
