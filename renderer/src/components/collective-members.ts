/**
 * The members of a collective as the Collectives view lists them: one row per member, live from `collectives.member`
 * while a bcast or round runs, then from the operation's result (a round joins its bcast, barrier and gather by rank).
 * Presentation only: every field comes from the core's answers as they are.
 */
import type { ChannelOutput, EventPayload } from '../../../shared/ipc/contract';

export type Operation = 'round' | 'bcast' | 'gather' | 'reduce' | 'barrier';

/** What a run answered, by operation. */
export type Outcome =
  | { op: 'round'; result: ChannelOutput<'collectives.round'> }
  | { op: 'bcast'; result: ChannelOutput<'collectives.bcast'> }
  | { op: 'barrier'; result: ChannelOutput<'collectives.barrier'> }
  | { op: 'gather'; result: ChannelOutput<'collectives.gather'> }
  | { op: 'reduce'; result: ChannelOutput<'collectives.reduce'> };

type GatheredMember = ChannelOutput<'collectives.gather'>['members'][number];

/** What a member produced in the context (gather's reading of the journal). */
export interface MemberAnswer {
  status: GatheredMember['status'];
  task_id: string | null;
  text: string | null;
  text_source: GatheredMember['text_source'];
  artifacts: GatheredMember['artifacts'];
}

export interface MemberError {
  code: string;
  message: string;
  help?: string;
}

export interface MemberRow {
  alias: string;
  rank: number;
  status: string;
  state: string | null;
  latency_ms: number | null;
  task_id: string | null;
  /** The context the member was sent to (or waited on) in; null before it is known. */
  context_id: string | null;
  /** The request a bcast sent the member: its answer is this request's (a direct reply, or the task it opened). */
  request_message_id: string | null;
  error: MemberError | null;
  /** Null until read: gathered by a round or gather, else read where it arrived (`collectives.answers`, member-answers-load.ts). */
  answer: MemberAnswer | null;
}

const answerOf = (m: GatheredMember): MemberAnswer => ({
  status: m.status,
  task_id: m.task_id,
  text: m.text,
  text_source: m.text_source,
  artifacts: m.artifacts,
});
const errorOf = (e: { code: string; message: string; help?: string | undefined } | null | undefined): MemberError | null =>
  e ? { code: e.code, message: e.message, ...(e.help ? { help: e.help } : {}) } : null;

/** A member not heard from yet (the roster, before the first `collectives.member` event). */
export const pendingRow = (m: { agent_alias: string; rank: number }): MemberRow => ({
  alias: m.agent_alias,
  rank: m.rank,
  status: 'pending',
  state: null,
  latency_ms: null,
  task_id: null,
  context_id: null,
  request_message_id: null,
  error: null,
  answer: null,
});

const maybeString = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** A `collectives.member` event as a row. */
export const liveRow = (m: EventPayload<'collectives.member'>): MemberRow => ({
  alias: m.alias,
  rank: m.rank,
  status: m.status,
  state: m.state ?? null,
  latency_ms: m.latency_ms ?? null,
  task_id: typeof m.task_id === 'string' ? m.task_id : null,
  context_id: maybeString(m.context_id),
  request_message_id: maybeString(m.request_message_id),
  error: errorOf(m.error),
  answer: null,
});

/** The rows an outcome reports, in rank order (reduce reports none: its provenance is shown instead). */
export function rowsOf(out: Outcome): MemberRow[] {
  if (out.op === 'reduce') return [];
  if (out.op === 'gather') {
    return out.result.members.map((m) => ({
      alias: m.alias,
      rank: m.rank,
      status: m.status,
      state: m.state,
      latency_ms: null,
      task_id: m.task_id,
      context_id: out.result.context_id,
      request_message_id: null,
      error: null,
      answer: answerOf(m),
    }));
  }
  if (out.op === 'barrier') {
    return out.result.members.map((m) => ({
      alias: m.alias,
      rank: m.rank,
      status: m.status,
      state: m.state,
      latency_ms: null,
      task_id: m.task_id,
      context_id: out.result.context_id,
      request_message_id: null,
      error: errorOf(m.error),
      answer: null,
    }));
  }
  const sent = out.op === 'bcast' ? out.result.members : out.result.bcast.members;
  const gathered = out.op === 'round' ? new Map((out.result.gather?.members ?? []).map((m) => [m.rank, m])) : new Map<number, GatheredMember>();
  const waited = out.op === 'round' ? new Map((out.result.barrier?.members ?? []).map((m) => [m.rank, m])) : new Map();
  return sent
    .map((m) => {
      const g = gathered.get(m.rank);
      const b = waited.get(m.rank);
      return {
        alias: m.alias,
        rank: m.rank,
        status: m.status,
        // The latest known state: gather reads the journal after the barrier refreshed each task.
        state: g?.state ?? (b?.state && b.state !== 'message' ? b.state : null) ?? m.state,
        latency_ms: m.latency_ms,
        task_id: g?.task_id ?? m.task_id,
        context_id: m.context_id,
        request_message_id: m.request_message_id,
        error: errorOf(m.error) ?? errorOf(b?.error),
        answer: g ? answerOf(g) : null,
      };
    })
    .sort((a, b) => a.rank - b.rank);
}

/** The context an outcome ran in (a bcast or round may have created it). */
export const contextOf = (out: Outcome): string => (out.op === 'bcast' ? out.result.request.context_id : out.result.context_id);

const DONE = new Set(['succeeded', 'satisfied', 'gathered', 'empty_output']);

export interface Progress {
  members: number;
  done: number;
  running: number;
  pending: number;
  skipped: number;
  failed: number;
}

/** Done, running, pending, skipped, and failed (failed, timed out, cancelled, missing, errored) members. */
export function progressOf(rows: MemberRow[]): Progress {
  const p: Progress = { members: rows.length, done: 0, running: 0, pending: 0, skipped: 0, failed: 0 };
  for (const r of rows) {
    if (DONE.has(r.status)) p.done++;
    else if (r.status === 'running') p.running++;
    else if (r.status === 'pending') p.pending++;
    else if (r.status === 'skipped') p.skipped++;
    else p.failed++;
  }
  return p;
}

/** `3 members: 2 done · 1 running · 0 failed` (pending and skipped only when there are some). */
export function progressText(p: Progress): string {
  const extra = [p.pending ? `${p.pending} pending` : '', p.skipped ? `${p.skipped} skipped` : ''].filter(Boolean);
  return [`${p.members} member${p.members === 1 ? '' : 's'}: ${p.done} done`, `${p.running} running`, `${p.failed} failed`, ...extra].join(' · ');
}
