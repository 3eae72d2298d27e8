/** The readable text of an A2A message's parts (a message's or a status message's; an artifact's: shared/artifact-text.ts). */

/** The text parts of an A2A part list, joined by newlines; null when there are none. */
export function textOfParts(parts: unknown): string | null {
  const texts = (Array.isArray(parts) ? parts : []).map((p: { text?: unknown } | null) => (typeof p?.text === 'string' ? p.text : '')).filter(Boolean);
  return texts.length ? texts.join('\n') : null;
}
