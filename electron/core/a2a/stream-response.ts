/**
 * The A2A StreamResponse union (exactly one of task, message, statusUpdate, artifactUpdate), checked with zod before
 * it crosses the SDK codec. Streams, task subscriptions and push callbacks all carry this shape.
 */
import { StreamResponse } from '@a2a-js/sdk';
import { z } from 'zod';

const status = z.looseObject({ state: z.string() });

const variants = {
  task: z.looseObject({ id: z.string().min(1), status: status.optional() }),
  message: z.looseObject({ messageId: z.string().min(1), parts: z.array(z.record(z.string(), z.unknown())) }),
  statusUpdate: z.looseObject({ taskId: z.string().min(1), status }),
  artifactUpdate: z.looseObject({
    taskId: z.string().min(1),
    artifact: z.looseObject({ artifactId: z.string().min(1), parts: z.array(z.record(z.string(), z.unknown())) }),
  }),
} as const;

export type StreamVariant = keyof typeof variants;
export const STREAM_VARIANTS = Object.keys(variants) as StreamVariant[];

/** The journal suffix of each variant: `a2a.stream.status_update`, `a2a.push.artifact_update`, … */
export const VARIANT_EVENT: Record<StreamVariant, string> = {
  task: 'task',
  message: 'message',
  statusUpdate: 'status_update',
  artifactUpdate: 'artifact_update',
};

export interface StreamRecord {
  variant: StreamVariant;
  /** Canonical JSON of the variant's payload after the SDK codec. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the codec's canonical JSON, read field by field where it is applied
  payload: Record<string, any>;
}

export type StreamCheck = { ok: true; record: StreamRecord } | { ok: false; reason: string };

/** Checks one decoded JSON value as a StreamResponse; never throws. */
export function checkStreamResponse(value: unknown): StreamCheck {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, reason: 'the payload is not a JSON object' };
  const keys = STREAM_VARIANTS.filter((k) => k in value);
  if (keys.length !== 1) {
    const seen = Object.keys(value).slice(0, 5).join(', ') || 'none';
    return { ok: false, reason: `expected exactly one of ${STREAM_VARIANTS.join(', ')}; found keys: ${seen}` };
  }
  const variant = keys[0]!;
  const parsed = variants[variant].safeParse((value as Record<string, unknown>)[variant]);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, reason: `${variant} is malformed at ${[variant, ...(issue?.path ?? [])].join('.')}: ${issue?.message ?? 'invalid'}` };
  }
  try {
    const canonical = StreamResponse.toJSON(StreamResponse.fromJSON(value as object)) as Record<string, StreamRecord['payload'] | undefined>;
    return { ok: true, record: { variant, payload: canonical[variant] ?? {} } };
  } catch (error) {
    return { ok: false, reason: `${variant} does not decode: ${(error as Error).message}` };
  }
}
