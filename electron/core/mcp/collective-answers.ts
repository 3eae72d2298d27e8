/**
 * What each member of a collective answered, as MCP content: a text block per member (rank, alias, state, answer text,
 * or why there is none) and its artifacts through parts.ts (inline when small, else a `missive://artifact/…` link).
 * Read from the local journal as gather reads it (member-output.ts), so a bcast, a round and a gather show alike.
 */
import type { Core } from '../handle.js';
import { memberOutput, type MemberOutput } from '../collectives/member-output.js';
import type { StoredArtifact } from '../store/rows/conversation.js';
import type { MemberResult } from '../collectives/fan-out.js';
import { artifactContent, type ContentBlock } from './parts.js';

export interface MemberAnswer {
  output: MemberOutput;
  artifacts: StoredArtifact[];
}

/** Each member's output in `contextId`, in the order given; `task_id` reads that task rather than the member's latest. */
export async function readMemberAnswers(
  core: Core,
  contextId: string,
  members: ReadonlyArray<{ alias: string; rank: number; task_id?: string | null }>,
): Promise<MemberAnswer[]> {
  const storage = await core.storage();
  const answers: MemberAnswer[] = [];
  for (const m of members) {
    const { stored_artifacts, ...output } = await storage.read(memberOutput({ alias: m.alias, rank: m.rank }, contextId, m.task_id ?? undefined));
    answers.push({ output, artifacts: stored_artifacts });
  }
  return answers;
}

const STATUS_TEXT: Record<MemberOutput['status'], string> = {
  gathered: '',
  missing_task: 'no answer in this context',
  empty_output: 'answered without text',
};

/** One member's heading line: `#1 alias (completed)`, with the send's outcome when the fan-out reported one. */
function heading(output: MemberOutput, sent?: MemberResult): string {
  const state = output.state ?? (output.status === 'gathered' ? 'answered' : null);
  const outcome = sent && sent.status !== 'succeeded' ? `; send ${sent.status}${sent.error ? `: ${sent.error.message}` : ''}` : '';
  return `#${output.rank} ${output.alias}${state ? ` (${state})` : ''}${outcome}`;
}

/** The members' answers as content: a text block each, then its artifacts (an artifact the text came from is not repeated as text). */
export function answersContent(answers: readonly MemberAnswer[], sends: readonly MemberResult[] = []): ContentBlock[] {
  const content: ContentBlock[] = [];
  for (const { output, artifacts } of answers) {
    const sent = sends.find((s) => s.alias === output.alias && s.rank === output.rank);
    const body = output.text_source === 'artifact' ? '' : (output.text ?? '');
    const text = [heading(output, sent), body || (output.text_source === 'artifact' ? '' : STATUS_TEXT[output.status])].filter(Boolean).join('\n');
    content.push({ type: 'text', text });
    for (const artifact of artifacts) {
      content.push(...artifactContent(artifact.task_id, { artifactId: artifact.artifact_id, name: artifact.name ?? undefined, parts: artifact.content.parts }));
    }
  }
  return content;
}

/** The members' answers as plain data for structured content (text, state, task and artifact ids). */
export const answersData = (answers: readonly MemberAnswer[]) =>
  answers.map(({ output }) => ({
    alias: output.alias,
    rank: output.rank,
    status: output.status,
    task_id: output.task_id,
    state: output.state,
    text: output.text,
    artifacts: output.artifacts.map((a) => ({ artifact_id: a.artifact_id, name: a.name, version: a.version })),
  }));
