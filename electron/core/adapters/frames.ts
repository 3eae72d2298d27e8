/**
 * The frames other programs use to call the IPC contract (shared/ipc/contract.ts) without the GUI: one JSON object
 * per request `{"id","channel","input"}`, answered by `{"id","ok":true,"value"}` or
 * `{"id","ok":false,"error":{code,category,message,exit_code,help?}}`; progress of a running call (the contract's
 * EVENT_CHANNELS) goes out as `{"event":channel,"payload":…}`. Transport-neutral: `adapter stdio` sends the frames
 * as NDJSON lines, `adapter file-drop` as files. A malformed frame (not JSON, not an object, no valid id, unknown
 * channel, input outside the contract) is answered with an error frame — id null when its id is unknown — and never
 * throws, so a transport's loop goes on. Every frame a transport writes goes through `scrubFrame` first: a peer that
 * echoes a credential back (in an error body, a card, a message) never gets it onto the transport.
 */
import { localBindings } from '../auth/host-trust.js';
import type { IpcError } from '../../../shared/ipc/contract.js';
import { MissiveError, usageError } from '../../../shared/errors.js';
import { isTooDeep, MAX_JSON_DEPTH } from '../security/json-depth.js';
import { redactValue, scrubSecrets } from '../security/redact.js';
import type { Core } from '../handle.js';
import type { Registry } from '../ipc/registry.js';

/** The largest frame a transport accepts (a line of `adapter stdio`, a file of `adapter file-drop`): 16 MiB. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** A request id: a non-empty string (at most 256 characters) or a safe integer, echoed in the reply. */
export type FrameId = string | number;

export type ReplyFrame = { id: FrameId; ok: true; value: unknown } | { id: FrameId | null; ok: false; error: IpcError };

/** The only keys a request frame may have. */
const FRAME_KEYS = new Set(['id', 'channel', 'input']);

const isFrameId = (value: unknown): value is FrameId =>
  (typeof value === 'string' && value.length > 0 && value.length <= 256) || (typeof value === 'number' && Number.isSafeInteger(value));

const HELP = 'A frame is one JSON object {"id": "…", "channel": "app.info", "input": {}}; see docs/automation.md.';

/** The error frame of a malformed frame: a validation error (exit 64). */
export function frameError(id: FrameId | null, reason: string, message: string): ReplyFrame {
  return { id, ok: false, error: usageError(reason, message, HELP).toReport() };
}

/** The error frame of any failure, as a report (secrets scrubbed). */
export function errorFrame(id: FrameId | null, error: MissiveError): ReplyFrame {
  return { id, ok: false, error: redactValue(error.toReport()) };
}

/** Runs a frame's call inside a scope of the transport's (e.g. an AsyncLocalStorage naming the request id). */
export type CallScope = <T>(id: FrameId, call: () => Promise<T>) => Promise<T>;

/**
 * Answers one parsed frame: checks its shape, then `registry.invoke(channel, input)` (which validates the input with
 * the contract and maps every failure to an error report), inside `scope` when given. Never throws.
 */
export async function handleFrame(registry: Registry, frame: unknown, scope?: CallScope): Promise<ReplyFrame> {
  if (frame === null || typeof frame !== 'object' || Array.isArray(frame)) return frameError(null, 'invalid_frame', 'a frame must be a JSON object');
  const record = frame as Record<string, unknown>;
  const id = isFrameId(record.id) ? record.id : null;
  if (id === null) return frameError(null, 'invalid_frame_id', 'a frame needs an "id": a non-empty string (at most 256 characters) or an integer');
  const extra = Object.keys(record).find((key) => !FRAME_KEYS.has(key));
  if (extra !== undefined) return frameError(id, 'invalid_frame', `unknown frame key "${extra.slice(0, 64)}" (a frame has only id, channel, input)`);
  if (typeof record.channel !== 'string' || record.channel.length === 0)
    return frameError(id, 'invalid_frame', 'a frame needs a "channel": the name of a contract channel');
  try {
    const channel = record.channel;
    const call = () => registry.invoke(channel, record.input ?? {});
    const result = await (scope ? scope(id, call) : call());
    return result.ok ? { id, ok: true, value: result.data } : { id, ok: false, error: result.error };
  } catch (error) {
    // The registry maps its own failures; this is only a guard so one frame never stops a transport's loop.
    return errorFrame(id, error instanceof MissiveError ? error : new MissiveError('internal', 'unexpected', String(error)));
  }
}

/**
 * Parses the text of one frame (a line, a file): too large, too deeply nested or not JSON → an error frame with id
 * null; otherwise the parsed value (to pass to handleFrame).
 */
export function parseFrameText(text: string): { ok: true; frame: unknown } | { ok: false; reply: ReplyFrame } {
  if (Buffer.byteLength(text, 'utf8') > MAX_FRAME_BYTES)
    return { ok: false, reply: frameError(null, 'frame_too_large', `a frame is at most ${MAX_FRAME_BYTES} bytes`) };
  if (isTooDeep(text)) return { ok: false, reply: frameError(null, 'frame_too_deep', `a frame nests JSON at most ${MAX_JSON_DEPTH} levels deep`) };
  try {
    return { ok: true, frame: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, reply: frameError(null, 'invalid_json', 'the frame is not JSON') };
  }
}

/** Parses and answers the text of one frame. Never throws. */
export async function handleFrameText(registry: Registry, text: string, scope?: CallScope): Promise<ReplyFrame> {
  const parsed = parseFrameText(text);
  return parsed.ok ? handleFrame(registry, parsed.frame, scope) : parsed.reply;
}

/**
 * The literal secrets no outgoing frame may carry: every credential this process sent or was given
 * (`core.knownSecrets()`: outbound auth, `auth.setSecret`), plus the values of the environment variables behind the
 * profile's auth refs (`refEnvNames`: those added with `auth add`, read by `authRefEnvNames`; and those of the config
 * file), even before they were used.
 */
export function frameSecrets(core: Core, refEnvNames: readonly string[]): string[] {
  const names = new Set<string>(refEnvNames);
  for (const ref of Object.values(core.config.authRefs)) if (ref.env) names.add(ref.env);
  const values = [...names].map((name) => core.env[name]).filter((v): v is string => typeof v === 'string');
  return [...values, ...core.knownSecrets()].filter((s) => s.length >= 4);
}

/** The environment variables the store's auth refs name (either store): read again after every frame. */
export async function authRefEnvNames(core: Core): Promise<string[]> {
  // On a shared store, the variables this host bound (a row's own name may be anyone's choice).
  const bindingOf = localBindings(core);
  return (await (await core.storage()).authRefs.list()).flatMap((stored) => {
    const ref = bindingOf(stored).ref;
    return ref.envVar ? [ref.envVar] : [];
  });
}

/** A frame with every known secret replaced (the rest byte-faithful). */
export const scrubFrame = <T>(frame: T, secrets: readonly string[]): T => scrubSecrets(frame, secrets);
