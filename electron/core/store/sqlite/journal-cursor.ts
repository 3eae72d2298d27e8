/** SQLite's journal cursor: the last sequence read (sequences are commit-ordered in one file). */
import type { JournalCursor } from '../storage.js';

export const sequenceCursor = (sequence: number) => `sqlite:${sequence}` as JournalCursor;

export function cursorSequence(cursor: JournalCursor): number {
  const match = /^sqlite:(\d+)$/.exec(cursor);
  if (!match) throw new Error(`not a SQLite journal cursor: ${cursor.slice(0, 40)}`);
  return Number(match[1]);
}
