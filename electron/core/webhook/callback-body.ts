/**
 * A push callback body, from an agent of either generation: A2A 1.0 posts a StreamResponse (`{"statusUpdate": …}`),
 * A2A 0.3 posts the bare event (`{"kind": "status-update", …}`), which the SDK's own compat code turns into the 1.0
 * shape. Either way the journal gets the same record. A value nested deeper than MAX_JSON_DEPTH is refused, whoever
 * parsed it: what follows (the SDK codecs, redaction, the journal's JSON columns) would fail on it.
 */
import { StreamResponse } from '@a2a-js/sdk';
import { legacyPushNotificationToV1StreamResponse } from '@a2a-js/sdk/compat/v0_3';
import { checkStreamResponse, type StreamRecord } from '../a2a/stream-response.js';
import type { Dialect } from '../a2a/dialect.js';
import { oneLine } from '../a2a/remote-text.js';
import { isValueTooDeep, MAX_JSON_DEPTH } from '../security/json-depth.js';

export type CallbackCheck = { ok: true; record: StreamRecord; dialect: Dialect } | { ok: false; reason: string };

const LEGACY_KINDS = new Set(['task', 'message', 'status-update', 'artifact-update']);

/**
 * `value`, checked. `depthChecked`: the caller parsed it from text that `isTooDeep` already bounded
 * (`parseBoundedJson`, as the receiver does), so it is not stringified and measured a second time.
 */
export function readCallback(value: unknown, options: { depthChecked?: boolean } = {}): CallbackCheck {
  if (!options.depthChecked && isValueTooDeep(value)) return { ok: false, reason: `the body nests JSON deeper than ${MAX_JSON_DEPTH} levels` };
  const kind = value && typeof value === 'object' && !Array.isArray(value) ? (value as { kind?: unknown }).kind : undefined;
  if (typeof kind !== 'string' || !LEGACY_KINDS.has(kind)) {
    const checked = checkStreamResponse(value);
    return checked.ok ? { ...checked, dialect: '1.0' } : { ok: false, reason: `not an A2A StreamResponse: ${checked.reason}` };
  }
  let translated: unknown;
  try {
    translated = StreamResponse.toJSON(legacyPushNotificationToV1StreamResponse(value));
  } catch (error) {
    return { ok: false, reason: `not an A2A 0.3 ${kind} event: ${oneLine((error as Error).message)}` };
  }
  const checked = checkStreamResponse(translated);
  return checked.ok ? { ...checked, dialect: '0.3' } : { ok: false, reason: `not an A2A 0.3 ${kind} event: ${checked.reason}` };
}
