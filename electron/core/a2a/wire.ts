/**
 * The wire view of a call: every HTTP exchange (or gRPC call) an A2A call makes, recorded as it happens, redacted as it
 * is recorded. A capture is created per call (`createWireCapture`) and handed down on `BindingCall.wire`; each wire
 * calls `begin` when a request leaves and gets a recorder for the answer's status and headers, its body, each SSE
 * frame with its arrival time, and the end or failure. Headers go through the project's redaction (Authorization,
 * API-key headers, cookies…), the call's literal secrets are scrubbed from the URL, headers and bodies, secret-like
 * JSON and `key=value` fields in bodies are blanked, bodies are cut at 256 KiB and at most 10,000 frames are kept.
 * Live callbacks let the CLI print each step as it happens. Without a capture nothing here runs.
 * Only the exchange is timed, from the request being written to the answer's last byte: a wire calls `begin` once its
 * code is loaded (undici is loaded on the first request), right before handing the request over, and `sent` when the
 * request is written on a connection (after connecting: see `timedDispatcher` in http.ts), which restarts the clock;
 * it stops at the answer's last byte (`body`, or the end of a stream), not after recording or printing it. A request
 * that never got a connection (refused, timed out) is timed from `begin`; a gRPC call from `begin` (connecting included).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { WireExchange, WireRequest } from '../../../shared/ipc/contract.js';
import { toMissiveError } from '../../../shared/errors.js';
import { REDACTED, isSecretKey, redactLogLine, redactText, redactValue } from '../security/redact.js';

export const MAX_WIRE_BODY_BYTES = 256 * 1024;
export const MAX_WIRE_FRAMES = 10_000;
/** Frame data kept per exchange in all (UTF-16 units): memory stays bounded however long a stream runs. */
export const MAX_WIRE_FRAME_CHARS = 32 * 1024 * 1024;
/** Extra text redacted beyond the cut, so a secret straddling it is blanked whole and never shows in part. */
const REDACTION_MARGIN = 64 * 1024;

export type WireFrame = NonNullable<WireExchange['frames']>[number];
/** request: it left; response: status and headers arrived; body: the (unary) body arrived; end: finished or failed. */
export type WirePhase = 'request' | 'response' | 'body' | 'end';

export interface WireCaptureOptions {
  onExchange?: (exchange: Readonly<WireExchange>, phase: WirePhase) => void;
  onFrame?: (exchange: Readonly<WireExchange>, frame: Readonly<WireFrame>) => void;
}

/** A request as a wire is about to send it (unredacted: begin redacts it). */
export interface OutgoingRequest {
  protocol: WireRequest['protocol'];
  method: string;
  url: string;
  headers: HeaderSource;
  body: string | null | undefined;
  /** A stream: the exchange gets a frame list even before its first frame. */
  stream?: boolean;
}

export type HeaderSource = Record<string, string | string[] | undefined> | Iterable<[string, string]>;

export interface WireRecorder {
  /** The request is being written on a connection: the exchange is timed from here (until then, from `begin`). */
  sent(): void;
  response(status: number, headers: HeaderSource): void;
  /** The whole (unary) body was read: the exchange's clock stops here, whenever `end` or `fail` comes. */
  body(text: string | null): void;
  frame(event: string | null | undefined, data: string): void;
  /** Records the failure (redacted) and ends the exchange. */
  fail(error: unknown): void;
  /** Ends the exchange; later calls of any method are ignored. */
  end(): void;
}

export interface WireCapture {
  /** Records the request and starts the exchange's clock: call it right before the request is handed over. */
  begin(operation: string, request: OutgoingRequest, secrets?: readonly string[]): WireRecorder;
  /** Every exchange so far, in the order they began, as the contract's `WireExchange`. */
  exchanges(): WireExchange[];
}

/** The literal secrets as they may appear on the wire: raw, JSON-escaped and percent-encoded. */
function secretForms(secrets: readonly string[] = []): string[] {
  const out = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    out.add(secret);
    out.add(JSON.stringify(secret).slice(1, -1));
    out.add(encodeURIComponent(secret));
  }
  // Longest first, so a secret that contains another is blanked whole.
  return [...out].sort((a, b) => b.length - a.length);
}

function headerRecord(source: HeaderSource): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = Symbol.iterator in source ? (source as Iterable<[string, string]>) : Object.entries(source as Record<string, string | string[] | undefined>);
  for (const [name, value] of entries) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  return out;
}

/** Headers with credentials redacted (auth scheme kept) and literal secrets scrubbed: the journal's header rule. */
export function redactWireHeaders(source: HeaderSource, secrets: readonly string[]): Record<string, string> {
  return redactValue({ headers: headerRecord(source) }, secrets).headers;
}

/** A URL without userinfo, with secret-named query parameters blanked and literal secrets scrubbed. */
export function redactWireUrl(raw: string, secrets: readonly string[]): string {
  let text = raw;
  try {
    const url = new URL(raw);
    if (url.username || url.password) {
      url.username = '';
      url.password = '';
    }
    for (const key of [...url.searchParams.keys()]) if (isSecretKey(key)) url.searchParams.set(key, REDACTED);
    text = url.href;
  } catch {
    // Not a URL (a gRPC host:port target): only the literal scrub applies.
  }
  return scrub(text, secrets);
}

const scrub = (text: string, secrets: readonly string[]) => (secrets.length ? redactText(text, secrets) : text);

/** The first `maxBytes` of UTF-8 text, without a broken character at the end. */
function cutUtf8(text: string, maxBytes: number): { text: string; truncated: boolean } {
  if (text.length * 3 <= maxBytes) return { text, truncated: false };
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return { text, truncated: false };
  return { text: new TextDecoder().decode(bytes.subarray(0, maxBytes)).replace(/\uFFFD+$/, ''), truncated: true };
}

/** A body or frame as the wire view keeps it: redacted, then cut at 256 KiB. */
export function redactWireBody(text: string, secrets: readonly string[]): { text: string; truncated: boolean } {
  const head = text.length > MAX_WIRE_BODY_BYTES + REDACTION_MARGIN ? text.slice(0, MAX_WIRE_BODY_BYTES + REDACTION_MARGIN) : text;
  return cutUtf8(redactLogLine(head, secrets), MAX_WIRE_BODY_BYTES);
}

/** A request as the wire view shows it (also what `requests.preview` renders for "Copy as curl"). */
export function wireRequestOf(request: OutgoingRequest, secrets: readonly string[] = []): WireRequest {
  const forms = secretForms(secrets);
  const body = request.body === undefined || request.body === null ? null : redactWireBody(request.body, forms);
  return {
    protocol: request.protocol,
    method: request.method,
    url: redactWireUrl(request.url, forms),
    headers: redactWireHeaders(request.headers, forms),
    body: body?.text ?? null,
    ...(body?.truncated ? { truncated: true } : {}),
  };
}

export function createWireCapture(options: WireCaptureOptions = {}): WireCapture {
  const all: WireExchange[] = [];
  return {
    begin(operation, request, secrets) {
      const forms = secretForms(secrets);
      const exchange: WireExchange = {
        id: randomUUID(),
        operation,
        started_at: new Date().toISOString(),
        duration_ms: null,
        request: wireRequestOf(request, secrets),
        response: null,
        ...(request.stream ? { frames: [], frames_dropped: 0 } : {}),
        error: null,
      };
      all.push(exchange);
      options.onExchange?.(exchange, 'request');
      // The clock starts here, after the request was recorded (and printed), and again at `sent`. The monotonic clock
      // is read first, so started_at + duration_ms never ends before the answer's last byte.
      let started = performance.now();
      exchange.started_at = new Date().toISOString();
      let ended = false;
      let frameChars = 0;
      /** When the answer's last byte was read (a unary body): recording and printing it is not timed. */
      let lastByte: number | undefined;
      const elapsed = (at = performance.now()) => Math.round(at - started);
      const finish = () => {
        ended = true;
        exchange.duration_ms = elapsed(lastByte);
        options.onExchange?.(exchange, 'end');
      };
      return {
        sent() {
          // Once an answer arrived the request was written: a late call (another write of a retried request) is ignored.
          if (ended || exchange.response) return;
          started = performance.now();
          exchange.started_at = new Date().toISOString();
        },
        response(status, headers) {
          if (ended) return;
          exchange.response = { status, headers: redactWireHeaders(headers, forms), body: null };
          options.onExchange?.(exchange, 'response');
        },
        body(text) {
          if (ended) return;
          lastByte = performance.now();
          exchange.response ??= { status: 0, headers: {}, body: null };
          if (text === null) exchange.response.body = null;
          else {
            const kept = redactWireBody(text, forms);
            exchange.response.body = kept.text;
            if (kept.truncated) exchange.response.truncated = true;
          }
          options.onExchange?.(exchange, 'body');
        },
        frame(event, data) {
          if (ended) return;
          const frames = (exchange.frames ??= []);
          if (frames.length >= MAX_WIRE_FRAMES || frameChars >= MAX_WIRE_FRAME_CHARS) {
            exchange.frames_dropped = (exchange.frames_dropped ?? 0) + 1;
            return;
          }
          const frame: WireFrame = { at_ms: elapsed(), event: event ?? null, data: redactWireBody(data, forms).text };
          frameChars += frame.data.length;
          frames.push(frame);
          exchange.frames_dropped ??= 0;
          options.onFrame?.(exchange, frame);
        },
        fail(error) {
          if (ended) return;
          const err = toMissiveError(error);
          exchange.error = { code: err.code, message: redactText(err.message, forms) };
          finish();
        },
        end() {
          if (!ended) finish();
        },
      };
    },
    exchanges: () =>
      all.map((e) => ({ ...e, request: { ...e.request }, response: e.response && { ...e.response }, ...(e.frames ? { frames: e.frames.slice() } : {}) })),
  };
}
