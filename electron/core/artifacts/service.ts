/** `task artifact list|show|save|export`: the stored artifacts of a task, read back and written to disk. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import type { StoredArtifact } from '../store/rows/conversation.js';
import { partContent } from './parts-content.js';
import { writeArtifactFiles, type ArtifactFile } from './write-files.js';
import { writePrivateFile } from '../security/private-files.js';

async function requireTask(core: Core, taskId: string) {
  const task = await (await core.storage()).conversation.getTask(taskId);
  if (!task)
    throw usageError('unknown_task', `task ${taskId} is not in the local journal`, 'Run `missive task get <id> --remote --agent <alias>` to fetch it first.');
  return task;
}

export async function listArtifacts(core: Core, taskId: string) {
  await requireTask(core, taskId);
  return { task_id: taskId, artifacts: await (await core.storage()).conversation.listArtifactsOfTask(taskId) };
}

export async function showArtifact(core: Core, taskId: string, artifactId: string): Promise<StoredArtifact> {
  await requireTask(core, taskId);
  const artifact = await (await core.storage()).conversation.getArtifact(taskId, artifactId);
  if (!artifact) throw usageError('unknown_artifact', `task ${taskId} has no artifact ${artifactId}`, `See \`missive task artifact list ${taskId}\`.`);
  return artifact;
}

/** Writes one artifact's parts, in order, into one file. */
export async function saveArtifact(core: Core, taskId: string, artifactId: string, output: string, options: { force?: boolean; cwd: string }) {
  const artifact = await showArtifact(core, taskId, artifactId);
  const path = resolve(options.cwd, output);
  if (existsSync(path) && !options.force) throw usageError('output_exists', `${path} already exists; nothing was written`, 'Pass --force to overwrite it.');
  const parts = ((artifact.content.parts as Array<Record<string, unknown>> | undefined) ?? []).map(partContent);
  const data = Buffer.concat(parts.map((p) => p.bytes));
  writePrivateFile(path, data);
  const result = { task_id: taskId, artifact_id: artifactId, version: artifact.version, path, bytes: data.length, parts: parts.map((p) => p.kind) };
  await (await core.storage()).journal.append({ type: 'missive.artifact.saved', agentAlias: null, contextId: artifact.context_id, taskId, payload: result });
  return result;
}

/** Writes every artifact of the task (or the chosen ones) into a directory with a manifest. */
export async function exportArtifacts(
  core: Core,
  taskId: string,
  outputDir: string,
  options: { force?: boolean; cwd: string; artifactIds?: string[] },
): Promise<{ task_id: string; directory: string; files: ArtifactFile[] }> {
  const task = await requireTask(core, taskId);
  const storage = await core.storage();
  const ids = options.artifactIds?.length ? options.artifactIds : (await storage.conversation.listArtifactsOfTask(taskId)).map((a) => a.artifact_id);
  const sets = [];
  for (const id of ids) sets.push({ artifact: await showArtifact(core, taskId, id) });
  const written = writeArtifactFiles(resolve(options.cwd, outputDir), sets, options.force === true);
  await storage.journal.append({
    type: 'missive.artifact.exported',
    agentAlias: task.agent_alias,
    contextId: task.context_id,
    taskId,
    payload: { directory: written.directory, files: written.files.length },
  });
  return { task_id: taskId, ...written };
}
