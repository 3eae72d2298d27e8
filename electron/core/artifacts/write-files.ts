/**
 * Writes artifacts into a directory: one file per part, safe deterministic names, a `manifest.json` beside them (an
 * artifact never takes that name: it becomes `manifest-2.json`). Every target is checked before anything is written,
 * and the files are staged and moved in at the end (private-files.ts), so a refused or failed export leaves the
 * directory as it was. Files are 0600, a directory the export creates 0700.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { usageError } from '../../../shared/errors.js';
import { writePrivateDir } from '../security/private-files.js';
import type { StoredArtifact } from '../store/rows/conversation.js';
import { extensionFor, safeSegment, uniqueNamer } from './file-names.js';
import { partContent, type PartKind } from './parts-content.js';

export interface ArtifactFile {
  file: string;
  artifact_id: string;
  task_id: string;
  version: number;
  part_index: number;
  kind: PartKind;
  media_type: string | null;
  bytes: number;
  sha256: string;
}

export interface FileSet {
  /** A prefix for every file name of this artifact (gather uses the member's rank). */
  prefix?: string;
  artifact: StoredArtifact;
}

const stemOf = (artifact: StoredArtifact) => {
  const safe = safeSegment(artifact.name, safeSegment(artifact.artifact_id, 'artifact'));
  const dot = safe.lastIndexOf('.');
  return { stem: dot > 0 ? safe.slice(0, dot) : safe, ext: dot > 0 ? safe.slice(dot) : '' };
};

/** The export's own file, a name no artifact file may take. */
export const MANIFEST = 'manifest.json';

/** Plans the files of the given artifacts without touching the disk. */
export function planArtifactFiles(sets: FileSet[]): Array<ArtifactFile & { data: Buffer }> {
  const name = uniqueNamer([MANIFEST]);
  const out: Array<ArtifactFile & { data: Buffer }> = [];
  for (const { prefix, artifact } of sets) {
    const parts = (artifact.content.parts as Array<Record<string, unknown>> | undefined) ?? [];
    const { stem, ext } = stemOf(artifact);
    parts.forEach((part, index) => {
      const content = partContent(part);
      const suffix = parts.length > 1 ? `.part${index + 1}` : '';
      const extension =
        content.kind === 'url' || content.kind === 'unknown' ? content.defaultExtension : ext || extensionFor(content.mediaType, content.defaultExtension);
      const file = name(`${prefix ? `${safeSegment(prefix, 'x')}-` : ''}${stem}${suffix}${extension}`);
      out.push({
        file,
        artifact_id: artifact.artifact_id,
        task_id: artifact.task_id,
        version: artifact.version,
        part_index: index,
        kind: content.kind,
        media_type: content.mediaType,
        bytes: content.bytes.length,
        sha256: createHash('sha256').update(content.bytes).digest('hex'),
        data: content.bytes,
      });
    });
  }
  return out;
}

/** Writes the planned files and `manifest.json` into `dir`; refuses existing files unless `force`. */
export function writeArtifactFiles(dir: string, sets: FileSet[], force: boolean): { directory: string; files: ArtifactFile[] } {
  const root = resolve(dir);
  const planned = planArtifactFiles(sets);
  const targets = [...planned.map((p) => p.file), MANIFEST].map((f) => {
    const path = join(root, f);
    const rel = relative(root, path);
    if (rel.startsWith('..') || rel.includes(sep)) throw usageError('unsafe_artifact_name', `refusing to write ${f} outside ${root}`);
    return path;
  });
  if (!force) {
    const existing = targets.filter((t) => existsSync(t));
    if (existing.length) {
      throw usageError(
        'output_exists',
        `${existing.length} file(s) already exist in ${root}, e.g. ${existing[0]}; nothing was written`,
        'Pass --force to overwrite, or choose another directory.',
      );
    }
  }
  const files = planned.map(({ data: _, ...file }) => file);
  writePrivateDir(root, [...planned.map((p) => ({ name: p.file, data: p.data })), { name: MANIFEST, data: `${JSON.stringify({ files }, null, 2)}\n` }]);
  return { directory: root, files };
}
