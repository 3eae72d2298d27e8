/**
 * Schema v2: artifact parts move to `artifact_chunks`, one row per received chunk, so an appended chunk is one
 * insert however long the artifact grows. `artifacts.content_json` keeps the artifact without its parts.
 */
export const name = 'artifact_chunks';

export const sql = `
CREATE TABLE artifact_chunks (
  task_id TEXT NOT NULL,
  artifact_id TEXT NOT NULL,
  chunk_index INTEGER NOT NULL CHECK (chunk_index >= 0),
  parts_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(parts_json) AND json_type(parts_json) = 'array'),
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  PRIMARY KEY (task_id, artifact_id, chunk_index),
  FOREIGN KEY (task_id, artifact_id) REFERENCES artifacts(task_id, artifact_id) ON DELETE CASCADE ON UPDATE CASCADE
) STRICT;

INSERT INTO artifact_chunks (task_id, artifact_id, chunk_index, parts_json)
  SELECT task_id, artifact_id, 0, coalesce(json_extract(content_json, '$.parts'), '[]') FROM artifacts;
UPDATE artifacts SET content_json = json_remove(content_json, '$.parts');
`;
