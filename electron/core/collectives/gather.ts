/** gather: each member's latest output in a context, from the local journal only; optional artifact export. */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { Core } from '../handle.js';
import { call, journal } from '../store/steps.js';
import { writeArtifactFiles, type ArtifactFile } from '../artifacts/write-files.js';
import { requireGroup } from './groups.js';
import { contextIdOf } from '../contexts/service.js';
import { memberOutput, type MemberOutput } from './member-output.js';

export interface GatherResult {
  operation_id: string;
  group: string;
  context_id: string;
  counts: Record<MemberOutput['status'], number>;
  members: MemberOutput[];
  export: { directory: string; files: ArtifactFile[] } | null;
}

export async function gather(core: Core, input: { group: string; contextId: string; outputDir?: string; force?: boolean; cwd: string }): Promise<GatherResult> {
  const group = await requireGroup(core, input.group);
  const contextId = await contextIdOf(core, input.contextId);
  input = { ...input, contextId };
  const operationId = randomUUID();
  await (
    await core.storage()
  ).write(function* () {
    yield* call('ensureContext', contextId, null);
    yield* journal({ type: 'missive.gather.started', contextId, payload: { operation_id: operationId, group: group.group_name } });
  });
  const outputs = [];
  for (const m of group.members) outputs.push(await (await core.storage()).read(memberOutput({ alias: m.agent_alias, rank: m.rank }, contextId)));
  const storage = await core.storage();
  for (const o of outputs) {
    await storage.journal.append({
      type: `missive.gather.member.${o.status}`,
      agentAlias: o.alias,
      contextId: input.contextId,
      taskId: o.task_id,
      payload: { operation_id: operationId, rank: o.rank, text_source: o.text_source, artifacts: o.artifacts.length },
    });
  }
  const width = String(Math.max(...group.members.map((m) => m.rank), 0)).length;
  const exported = input.outputDir
    ? writeArtifactFiles(
        resolve(input.cwd, input.outputDir),
        outputs.flatMap((o) => o.stored_artifacts.map((artifact) => ({ prefix: `${String(o.rank).padStart(width, '0')}-${o.alias}`, artifact }))),
        input.force === true,
      )
    : null;
  const counts = { gathered: 0, missing_task: 0, empty_output: 0 };
  for (const o of outputs) counts[o.status]++;
  const members = outputs.map(({ stored_artifacts: _, ...rest }) => rest);
  await storage.journal.append({
    type: 'missive.gather.completed',
    contextId: input.contextId,
    payload: { operation_id: operationId, counts, exported_files: exported?.files.length ?? 0 },
  });
  return { operation_id: operationId, group: group.group_name, context_id: input.contextId, counts, members, export: exported };
}

/** The markdown a person reads: one section per member in rank order. */
export function gatherMarkdown(r: GatherResult): string {
  const lines = [
    `# gather: ${r.group}`,
    '',
    `context \`${r.context_id}\` — ${r.counts.gathered} gathered, ${r.counts.missing_task} missing, ${r.counts.empty_output} empty`,
    '',
  ];
  for (const m of r.members) {
    lines.push(`## ${m.rank} ${m.alias}${m.state ? ` (${m.state})` : ''}`, '');
    if (m.status === 'missing_task') lines.push('_no task or answer in this context_');
    else lines.push(m.text ?? '_no text output_');
    if (m.artifacts.length) lines.push('', `artifacts: ${m.artifacts.map((a) => `${a.artifact_id} v${a.version}`).join(', ')}`);
    lines.push('');
  }
  if (r.export) lines.push(`exported ${r.export.files.length} file(s) to ${r.export.directory}`);
  return lines.join('\n').trimEnd();
}
