/**
 * The live view of `missive load` on a terminal: three lines redrawn in place at each snapshot (about once a
 * second): progress, counts, rate against target and recent latency. Off a TTY, or in machine modes, nothing is
 * drawn (progress.ts's rule); the same cursor-up and erase-line redraw as bcast's member view.
 */
import type { Io } from './output.js';
import { MemberProgress } from './progress.js';
import { terminalLine } from './terminal-text.js';
import type { LoadPlan, LoadSnapshot } from '../core/load/types.js';
import { ms, perSecond, seconds } from './load-text.js';

const count = (n: number) => n.toLocaleString('en-US');

/** The lines of one snapshot (exported for tests of the text). */
export function snapshotLines(plan: LoadPlan, heading: string, s: LoadSnapshot): string[] {
  const elapsed = `${(s.elapsed_ms / 1000).toFixed(0)} s`;
  const progress = s.warming_up
    ? `warming up, ${elapsed} of ${seconds(plan.warmupMs)}`
    : plan.durationMs !== undefined
      ? `${elapsed} of ${seconds(plan.durationMs + plan.warmupMs)}`
      : `${count(s.sent)} of ${count(plan.requests ?? 0)} sent, ${elapsed}`;
  const target = plan.model.kind === 'open' ? ` of ${perSecond(plan.model.rate)}` : '';
  return [
    `${terminalLine(heading)}   ${progress}`,
    `sent ${count(s.sent)}   answered ${count(s.answered)}   in flight ${count(s.in_flight)}   errors ${count(s.errors)}`,
    `rate ${perSecond(s.rate)}${target}   p50 ${ms(s.p50)} ms   p99 ${ms(s.p99)} ms (last seconds)`,
  ];
}

export class LoadView {
  #drawn = 0;
  constructor(
    private readonly io: Io,
    private readonly plan: LoadPlan,
    private readonly heading: string,
  ) {}

  static enabled(io: Io, mode: string): boolean {
    return MemberProgress.enabled(io, mode);
  }

  update(snapshot: LoadSnapshot): void {
    const lines = snapshotLines(this.plan, this.heading, snapshot);
    const up = this.#drawn ? `\x1b[${this.#drawn}A` : '';
    this.io.stdout(`${up}${lines.map((l) => `\x1b[2K${l}`).join('\n')}\n`);
    this.#drawn = lines.length;
  }

  /** Leaves the last drawing on screen, with a blank line before the report. */
  finish(): void {
    if (this.#drawn) this.io.stdout('\n');
  }
}
