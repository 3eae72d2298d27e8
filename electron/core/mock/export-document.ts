/**
 * The `missive.context_export.v1` document (contexts/service.ts exportContext) as the mock reads it: only the fields a
 * recording needs are checked; every other field is kept as it is (loose objects), so a newer export still reads.
 */
import { z } from 'zod';

const json = z.record(z.string(), z.unknown());

export const exportMessage = z.looseObject({
  message_id: z.string(),
  agent_alias: z.string().nullable(),
  task_id: z.string().nullable().optional(),
  direction: z.string(),
  role: z.string().optional(),
  content: json,
  metadata: json.optional(),
  created_at: z.string(),
});

export const exportTask = z.looseObject({
  task_id: z.string(),
  agent_alias: z.string().nullable().optional(),
  state: z.string().optional(),
  remote_task: json.nullable().optional(),
});

export const exportArtifact = z.looseObject({
  artifact_id: z.string(),
  task_id: z.string().nullable(),
  content: json.nullable().optional(),
});

export const exportEvent = z.looseObject({
  sequence: z.number(),
  timestamp: z.string(),
  event_type: z.string(),
  agent_alias: z.string().nullable().optional(),
  task_id: z.string().nullable().optional(),
  payload: json,
});

export const contextExport = z.looseObject({
  schema: z.literal('missive.context_export.v1'),
  context: z.looseObject({ context_id: z.string(), agent_alias: z.string().nullable().optional() }),
  messages: z.array(exportMessage),
  tasks: z.array(exportTask),
  artifacts: z.array(exportArtifact),
  events: z.array(exportEvent),
});

export type ContextExport = z.output<typeof contextExport>;
export type ExportMessage = z.output<typeof exportMessage>;
export type ExportEvent = z.output<typeof exportEvent>;
