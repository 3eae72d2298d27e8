/** Shared by the benchmarks: order statistics, paired measurement and the ratio line every benchmark prints. */

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The q-quantile (0…1) of `xs`, nearest rank. */
export const quantile = (xs: number[], q: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
};

/**
 * Runs `baseline` and `subject` alternately `rounds` times after one warm-up each, so both see the same machine
 * state; returns the medians of what each returned (times, rates, whatever the benchmark measures).
 */
export async function paired(rounds: number, baseline: () => Promise<number>, subject: () => Promise<number>): Promise<{ baseline: number; subject: number }> {
  await baseline();
  await subject();
  const b: number[] = [];
  const s: number[] = [];
  for (let i = 0; i < rounds; i++) {
    b.push(await baseline());
    s.push(await subject());
  }
  return { baseline: median(b), subject: median(s) };
}

/** One result line: `NAME ratio R (target OP T): met|NOT met`. `lowerIsBetter` picks ≤ or ≥. */
export function ratioLine(name: string, ratio: number, target: number, lowerIsBetter = true): string {
  const met = lowerIsBetter ? ratio <= target : ratio >= target;
  return `${name}: ratio ${ratio.toFixed(2)} (target ${lowerIsBetter ? '≤' : '≥'} ${target}): ${met ? 'met' : 'NOT met'}`;
}
