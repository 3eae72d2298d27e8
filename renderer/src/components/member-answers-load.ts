/**
 * Members' answers where they arrived: a bcast, scatter or barrier row whose member has settled gets its answer read
 * from the journal (`collectives.answers`: by its task, else by the request the bcast sent it) as soon as the row says
 * so, without a gather. A row is read again only when what names its answer changes (its task, request or state), so
 * the live rows of a run and the run's result share one read.
 */
import { useEffect, useRef, useState } from 'react';
import { call } from '../api';
import { toReport } from '../hooks';
import type { MemberAnswer, MemberRow } from './collective-members';
import type { ChannelInput, ChannelOutput, IpcError } from '../../../shared/ipc/contract';

/** Statuses whose member has no answer to read (yet): not sent, or still being sent. */
const NOTHING_YET = new Set(['pending', 'running', 'skipped']);

/** What names a row's answer; the same key, the same answer. */
const keyOf = (r: MemberRow) => [r.alias, r.rank, r.context_id, r.task_id, r.request_message_id, r.state].join('|');

/** Whether the row's answer can be read where it arrived: the member settled, and its task, request or context is known. */
export function answerable(r: MemberRow): boolean {
  if (r.answer || !r.context_id || NOTHING_YET.has(r.status)) return false;
  // A member whose send failed before any task has its error, not an answer.
  if (r.error && !r.task_id) return false;
  return r.task_id !== null || r.request_message_id !== null || r.status === 'satisfied';
}

type MemberRef = ChannelInput<'collectives.answers'>['members'][number];
const refOf = (r: MemberRow): MemberRef => ({
  alias: r.alias,
  rank: r.rank,
  contextId: r.context_id!,
  ...(r.task_id ? { taskId: r.task_id } : {}),
  ...(r.request_message_id ? { requestMessageId: r.request_message_id } : {}),
});

/** `rows` with the answers read so far filled in, which rows are being read, and the last read's error. */
export function useArrivedAnswers(rows: MemberRow[]): { rows: MemberRow[]; reading: (r: MemberRow) => boolean; error: IpcError | null } {
  const [answers, setAnswers] = useState<Record<string, MemberAnswer>>({});
  const [error, setError] = useState<IpcError | null>(null);
  // Keys asked for (answered or on the way): each is asked once; a failed read is asked again with the next rows.
  const asked = useRef(new Set<string>());
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );
  const missing = rows.filter((r) => answerable(r) && !asked.current.has(keyOf(r)));
  const batch = missing.map(keyOf).join('\n');
  useEffect(() => {
    if (!missing.length) return;
    const keys = missing.map(keyOf);
    keys.forEach((k) => asked.current.add(k));
    // A key names one answer whatever the rows are now: a late answer is still the right one.
    call('collectives.answers', { members: missing.map(refOf) }).then(
      (out) => {
        if (!mounted.current) return;
        setError(null);
        setAnswers((a) => ({ ...a, ...Object.fromEntries(out.members.map((m, i) => [keys[i]!, toAnswer(m)])) }));
      },
      (e: unknown) => {
        keys.forEach((k) => asked.current.delete(k));
        if (mounted.current) setError(toReport(e));
      },
    );
    // `batch` names the rows to read; `missing` is recomputed from the same rows on each render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [batch]);
  return {
    rows: rows.map((r) => (r.answer ? r : { ...r, answer: answers[keyOf(r)] ?? null })),
    reading: (r) => answerable(r) && !answers[keyOf(r)],
    error,
  };
}

const toAnswer = (m: ChannelOutput<'collectives.answers'>['members'][number]): MemberAnswer => ({
  status: m.status,
  task_id: m.task_id,
  text: m.text,
  text_source: m.text_source,
  artifacts: m.artifacts,
});
