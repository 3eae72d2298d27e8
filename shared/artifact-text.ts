/**
 * The parts of one A2A artifact as its sender meant them, the one rule every view reads an artifact's text with (the
 * CLI's send, stream, task and history answers, gather and reduce, context threads, and the desktop app's answer).
 *
 * An artifact's text often arrives in pieces: most LLM frameworks send one TaskArtifactUpdateEvent per token, each
 * with `append: true`, and an agent's SDK hands the same pieces back as consecutive text parts of the task's artifact
 * (a send's answer, a GetTask). Those pieces are one text: consecutive text-only parts of one artifact (same media
 * type) are concatenated as sent, nothing inserted between them. A data or file part stays a part of its own, and
 * different artifacts stay separate. Isomorphic: no Node built-in, no DOM.
 */

export type ArtifactPart = Record<string, unknown>;

const isPart = (p: unknown): p is ArtifactPart => typeof p === 'object' && p !== null && !Array.isArray(p);

/** A part's text when it is text only (no data, file or URL besides, in the 1.0 or 0.3 shape), else null. */
function textOnly(part: ArtifactPart): string | null {
  if (typeof part.text !== 'string') return null;
  return part.data === undefined && part.url === undefined && part.raw === undefined && part.file === undefined ? part.text : null;
}

/** An absent media type and an empty one are the same (the 1.0 JSON omits an empty field). */
const mediaTypeOf = (part: ArtifactPart): unknown => (part.mediaType === '' ? undefined : part.mediaType);

/** The artifact's parts with each run of text pieces made one text part (the first piece's fields, the run's text). */
export function joinArtifactParts(parts: unknown): ArtifactPart[] {
  const joined: ArtifactPart[] = [];
  for (const part of Array.isArray(parts) ? parts.filter(isPart) : []) {
    const last = joined[joined.length - 1];
    const before = last ? textOnly(last) : null;
    const next = textOnly(part);
    if (last && before !== null && next !== null && mediaTypeOf(last) === mediaTypeOf(part)) joined[joined.length - 1] = { ...last, text: before + next };
    else joined.push(part);
  }
  return joined;
}

/** An appended chunk's parts after the artifact's (a TaskArtifactUpdateEvent with `append: true`). */
export const appendArtifactParts = (existing: readonly ArtifactPart[], chunk: unknown): ArtifactPart[] =>
  joinArtifactParts([...existing, ...(Array.isArray(chunk) ? chunk : [])]);

/** The text of one artifact's parts (or of the chunks it arrived in, in order): its texts, one per line; null when none. */
export function artifactText(parts: unknown): string | null {
  const texts = joinArtifactParts(parts)
    .map((p) => (typeof p.text === 'string' ? p.text : ''))
    .filter(Boolean);
  return texts.length ? texts.join('\n') : null;
}
