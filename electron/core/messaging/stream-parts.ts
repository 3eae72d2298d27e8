/**
 * The parts one stream record carried, as the GUI's live answer shows them: an artifact update's chunk, a message's
 * parts, or a status update's (or task's) status message. File bytes are replaced by their size, so an event never
 * ships a file's content to the window (the journal keeps it; Save exports it from there).
 */
import type { StreamRecord } from '../a2a/stream-response.js';

type Part = Record<string, unknown>;

/** A part without its bytes: `raw` becomes `raw_bytes`, the decoded size. */
export function withoutBytes(part: Part): Part {
  if (typeof part.raw !== 'string') return part;
  const { raw, ...rest } = part;
  const padding = raw.endsWith('==') ? 2 : raw.endsWith('=') ? 1 : 0;
  return { ...rest, raw_bytes: Math.max(0, Math.floor((raw.length * 3) / 4) - padding) };
}

const partsAt = (value: unknown): Part[] => (Array.isArray(value) ? value.filter((p): p is Part => typeof p === 'object' && p !== null).map(withoutBytes) : []);

function partsOf(record: StreamRecord): Part[] {
  const p = record.payload;
  switch (record.variant) {
    case 'artifactUpdate':
      return partsAt(p.artifact?.parts);
    case 'message':
      return partsAt(p.parts);
    default:
      return partsAt(p.status?.message?.parts);
  }
}

/** What the GUI's stream event adds to the applied update: the record's parts, and an artifact update's artifact name. */
export function streamRecordDetail(record: StreamRecord): { parts: Part[]; artifact_name: string | null } {
  const name = record.variant === 'artifactUpdate' ? record.payload.artifact?.name : undefined;
  return { parts: partsOf(record), artifact_name: typeof name === 'string' && name ? name : null };
}
