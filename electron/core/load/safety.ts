/**
 * Whether a `missive load` run may start: pure rules, no prompting here (the CLI asks). A run that could hurt
 * someone else's agent (more planned requests than CONFIRM_ABOVE) needs a yes, typed on a terminal or given as
 * `--yes`; a run planned above `--max-requests` is refused whatever is said. Loopback targets are not exempt: a
 * loopback port is often a tunnel (ssh -L, kubectl port-forward) to an agent on another machine.
 */
import { usageError } from '../../../shared/errors.js';
import type { LoadPlan } from './types.js';

/** Above this many planned requests a run needs a confirmation or `--yes`. */
export const CONFIRM_ABOVE = 1_000;
/** The default of `--max-requests`: no run is planned above it, and no run sends more. */
export const DEFAULT_MAX_REQUESTS = 100_000;

/**
 * How many requests a plan will send, warm-up included: N, or rate × (warm-up + duration) in open-loop. A timed
 * closed-loop run sends as many as the agent answers: its count is not known (null), only bounded by --max-requests.
 */
export function plannedRequests(plan: Pick<LoadPlan, 'model' | 'durationMs' | 'requests' | 'warmupMs'>): number | null {
  if (plan.requests !== undefined) return plan.requests + (plan.model.kind === 'open' ? Math.ceil((plan.model.rate * plan.warmupMs) / 1000) : 0);
  if (plan.model.kind === 'closed') return null;
  return Math.ceil((plan.model.rate * ((plan.durationMs ?? 0) + plan.warmupMs)) / 1000);
}

export interface SafetyInput {
  planned: number | null;
  maxRequests: number;
  yes: boolean;
  /** An operator at a terminal who can answer a question. */
  interactive: boolean;
  /** Where the requests go, for the question: `demo-echo at http://127.0.0.1:41241`. */
  where: string;
}

export type SafetyDecision = { kind: 'go' } | { kind: 'ask'; question: string };

const count = (n: number) => n.toLocaleString('en-US');

/** What the run is about to do, in a few words: `~12,000 requests` or `as many requests as it answers, at most 100,000`. */
export function plannedText(planned: number | null, maxRequests: number): string {
  return planned === null ? `as many requests as it answers (at most ${count(maxRequests)})` : `~${count(planned)} requests`;
}

/** Go, ask, or throw the refusal (exit 64, naming the flag that changes it). */
export function checkLoadSafety(input: SafetyInput): SafetyDecision {
  const { planned, maxRequests } = input;
  if (planned !== null && planned > maxRequests)
    throw usageError(
      'load_above_max_requests',
      `this run plans ${count(planned)} requests, above --max-requests ${count(maxRequests)}`,
      'Lower --rate, --duration or --requests, or raise the cap with --max-requests N if the agent is yours to load.',
    );
  const bound = planned ?? maxRequests;
  if (bound <= CONFIRM_ABOVE || input.yes) return { kind: 'go' };
  const what = `${plannedText(planned, maxRequests)} to ${input.where}`;
  if (!input.interactive)
    throw usageError(
      'load_needs_confirmation',
      `not sending ${what} without a confirmation (more than ${count(CONFIRM_ABOVE)} requests)`,
      'Add --yes to confirm, or plan at most 1,000 requests (--requests N, or a lower --rate or --duration, or --max-requests 1000).',
    );
  return { kind: 'ask', question: `about to send ${what}: continue? [y/N] ` };
}

/** A typed answer is a yes only when it says so. */
export const isYes = (answer: string): boolean => /^\s*y(es)?\s*$/i.test(answer.split('\n')[0] ?? '');
