/**
 * The live per-member view of a fan-out on a terminal: one line per member (rank, alias, state, latency bar),
 * redrawn in place as members answer. Off a TTY, or in machine modes, nothing is drawn.
 */
import type { Io } from './output.js';
import type { MemberResult } from '../core/collectives/fan-out.js';
import { terminalLine } from './terminal-text.js';

const MARK: Record<MemberResult['status'], string> = { pending: '·', running: '…', succeeded: '✓', failed: '✗', timeout: '⌛', skipped: '-' };

export class MemberProgress {
  #rows = new Map<string, MemberResult>();
  #drawn = 0;
  #timer: NodeJS.Timeout | undefined;
  constructor(private readonly io: Io) {}

  static enabled(io: Io, mode: string): boolean {
    return io.isTTY && mode === 'human';
  }

  update(member: MemberResult): void {
    this.#rows.set(`${member.rank}:${member.input_index ?? ''}`, { ...member });
    // Coalesce bursts (hundreds of members answering at once) into one redraw per tick.
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.draw();
    }, 50);
  }

  draw(): void {
    const rows = [...this.#rows.values()].sort((a, b) => a.rank - b.rank || (a.input_index ?? 0) - (b.input_index ?? 0));
    const slowest = Math.max(1, ...rows.map((r) => r.latency_ms ?? 0));
    // Aliases and states are data: escaped before missive adds its own cursor and erase-line sequences.
    const width = Math.max(5, ...rows.map((r) => terminalLine(r.alias).length));
    const lines = rows.map((r) => {
      const bar = r.latency_ms === null ? '' : '█'.repeat(Math.max(1, Math.round((r.latency_ms / slowest) * 20)));
      return `${MARK[r.status]} ${String(r.rank).padStart(3)} ${terminalLine(r.alias).padEnd(width)} ${terminalLine(r.state ?? r.status).padEnd(14)} ${r.latency_ms === null ? '' : `${String(r.latency_ms).padStart(6)} ms ${bar}`}`;
    });
    const up = this.#drawn ? `\x1b[${this.#drawn}A` : '';
    this.io.stdout(`${up}${lines.map((l) => `\x1b[2K${l}`).join('\n')}\n`);
    this.#drawn = lines.length;
  }

  /** Final redraw, before the summary. */
  finish(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#rows.size) this.draw();
  }
}
