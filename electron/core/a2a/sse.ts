/**
 * Server-sent A2A streams (SendStreamingMessage, SubscribeToTask) over both bindings. The body is parsed
 * incrementally with eventsource-parser and each record is yielded as soon as it is complete: nothing buffers
 * the whole stream. Every record is checked as a StreamResponse; failures carry the record's sequence number. A 401/403
 * answer to the opening POST is an auth error (exit 77) whatever its body, as for unary calls. What an agent may send is
 * bounded on every wire (wire-limits.ts): an event still unfinished at 16 MiB, a stream past its budget of bytes or
 * events, an event holding too many JSON objects each fail the stream (exit 76) and close the connection.
 * With a wire capture (`call.wire`), the request, the answer's status and headers and every SSE record (a frame with
 * its arrival time) are recorded too.
 */
import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { MissiveError, protocolError } from '../../../shared/errors.js';
import { parseBoundedJson } from '../security/json-depth.js';
import { redactUrl } from '../security/redact.js';
import { A2A_JSON, type BindingCall } from './binding-call.js';
import { assertAuthorized, assertOk, flattenHeaders, networkError, sharedDispatcher, streamBrokenError, timedDispatcher, tryJson, withQuery } from './http.js';
import { streamWithReauth } from './reauth.js';
import { agentServerFailure, assertSameId, jsonRpcFailure, type JsonRpcErrorObject } from './jsonrpc-errors.js';
import { viaSdk } from './interfaces.js';
import { checkStreamResponse, type StreamRecord } from './stream-response.js';
import { isMissingRoute, versionMismatchError } from './version-mismatch.js';
import { loadUndici } from './undici.js';
import { assertFewObjects, eventTooLargeError, MAX_EVENT_BYTES, streamBudget, type StreamBudget } from './wire-limits.js';
import type { WireCapture, WireRecorder } from './wire.js';
import type { SequencedRecord, StreamMethod, StreamOperations } from './operations.js';

export type { SequencedRecord, StreamMethod } from './operations.js';

export interface StreamCall extends BindingCall {
  /** Aborts the stream (e.g. the command's overall deadline or Ctrl-C). */
  signal?: AbortSignal;
}

const REST_STREAM_PATHS: { [M in StreamMethod]: (p: StreamOperations[M]) => string } = {
  SendStreamingMessage: () => 'message:stream',
  SubscribeToTask: (p) => `tasks/${encodeURIComponent(String(p.id))}:subscribe`,
};

const MAX_ERROR_BODY = 64 * 1024;

async function readSmall(body: Dispatcher.ResponseData['body']): Promise<string> {
  let text = '';
  for await (const chunk of body) {
    text += (chunk as Buffer).toString('utf8');
    if (text.length > MAX_ERROR_BODY) break;
  }
  body.destroy();
  return text;
}

function checked(value: unknown, sequence: number): StreamRecord {
  const result = checkStreamResponse(value);
  if (!result.ok) throw protocolError('unknown_stream_variant', `stream event #${sequence} is not an A2A StreamResponse: ${result.reason}`);
  return result.record;
}

/**
 * Decodes one SSE data field into a StreamResponse record, unwrapping JSON-RPC; data nested too deep is refused (exit 76).
 * `requestId`: the JSON-RPC id of the request that opened the stream, which every result event must carry.
 */
export function decodeStreamData(
  data: string,
  call: Pick<BindingCall, 'iface' | 'protocolVersion' | 'alias' | 'maxAnswerObjects'>,
  method: string,
  sequence: number,
  requestId?: string,
): StreamRecord {
  assertFewObjects(data, `event #${sequence} of the ${method} stream`, call);
  let value = parseBoundedJson(data, `stream event #${sequence}`, (error) => {
    throw protocolError('malformed_stream_event', `stream event #${sequence} is not valid JSON: ${error.message}`);
  });
  if (value && typeof value === 'object' && 'error' in value && (value as { error?: unknown }).error) {
    throw jsonRpcFailure(call, method, call.iface.url, value as { error: JsonRpcErrorObject }, sequence);
  }
  if (call.iface.binding === 'json-rpc') {
    const envelope = value as { jsonrpc?: unknown; id?: unknown; result?: unknown } | null;
    if (!envelope || envelope.jsonrpc !== '2.0' || !('result' in envelope)) {
      throw protocolError('malformed_stream_event', `stream event #${sequence} is not a JSON-RPC 2.0 result`);
    }
    if (requestId !== undefined) assertSameId(`${method} (stream event #${sequence})`, call.iface.url, requestId, envelope.id);
    value = envelope.result;
  }
  return checked(value, sequence);
}

/** The v0.3 dialect and gRPC: the SDK speaks the wire, each event arrives as v1.0 JSON and is checked like ours. */
async function* sdkStream<M extends StreamMethod>(
  call: StreamCall,
  method: M,
  params: StreamOperations[M],
  budget: StreamBudget,
): AsyncGenerator<SequencedRecord> {
  const { streamViaSdk } = await import('./sdk-transport.js');
  let sequence = 0;
  for await (const value of streamViaSdk(call, method, params, call.signal, budget)) {
    budget.event();
    sequence++;
    yield { sequence, ...checked(value, sequence) };
  }
}

/** The POST that opens a stream on the 1.0 wire: HTTP+JSON route or JSON-RPC envelope (also what requests.preview renders). */
export function streamRequest<M extends StreamMethod>(
  call: Pick<BindingCall, 'iface' | 'headers'>,
  method: M,
  params: StreamOperations[M],
  id: string = randomUUID(),
): { url: string; headers: Record<string, string>; body: string } {
  const { iface } = call;
  const rest = iface.binding === 'http+json';
  return {
    url: rest ? `${iface.url.replace(/\/+$/, '')}/${(REST_STREAM_PATHS[method] as (p: StreamOperations[M]) => string)(params)}` : iface.url,
    headers: { ...call.headers, 'Content-Type': rest ? A2A_JSON : 'application/json', Accept: 'text/event-stream' },
    body: rest ? JSON.stringify(params) : JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  };
}

/** The POST that opens a stream, with the JSON-RPC id its events must carry (unused on HTTP+JSON). */
type StreamHttpRequest = ReturnType<typeof streamRequest> & { id: string };

/**
 * Opens the stream, renewing the credentials once on a 401 before its first event (reauth.ts, as the client's reauth
 * decorator does), and yields each StreamResponse as it arrives. Breaking out of the loop closes the connection.
 * The gateway's follower uses it; everything else streams through the client (client.ts).
 */
export function openStream<M extends StreamMethod>(call: StreamCall, method: M, params: StreamOperations[M]): AsyncGenerator<SequencedRecord> {
  return call.reauth ? streamWithReauth(call, (c) => openStreamOnce(c, method, params)) : openStreamOnce(call, method, params);
}

/** One stream on the call's wire, with no retry: the base of the client's `stream`. */
export function openStreamOnce<M extends StreamMethod>(call: StreamCall, method: M, params: StreamOperations[M]): AsyncGenerator<SequencedRecord> {
  // Each stream (a renewed one after a 401 too) has its own budget of bytes and events.
  const budget = streamBudget(call, method);
  if (viaSdk(call.iface)) return sdkStream(call, method, params, budget);
  const id = randomUUID();
  const req = { ...streamRequest(call, method, params, id), id };
  return call.wire ? recordedStream(call, method, req, call.wire, budget) : httpStream(call, method, req, budget);
}

/** The wire view of a 1.0 stream: the exchange ends when the stream does (or the caller stops reading), or fails with it. */
async function* recordedStream(
  call: StreamCall,
  method: StreamMethod,
  req: StreamHttpRequest,
  capture: WireCapture,
  budget: StreamBudget,
): AsyncGenerator<SequencedRecord> {
  // Loaded first: the wire view times the exchange, not the loading of undici on the first request.
  const { request } = await loadUndici();
  // Our own undici's pooled agent, never the process's global dispatcher: that one may belong to another undici copy
  // (Node's built-in fetch sets it) that does not take the timing interceptor's handler.
  const base = call.dispatcher ?? (await sharedDispatcher());
  const wire = capture.begin(
    method,
    { protocol: 'http', method: 'POST', url: withQuery(req.url, call.query), headers: req.headers, body: req.body, stream: true },
    call.secrets,
  );
  try {
    const dispatcher = timedDispatcher(base, wire.sent);
    yield* httpStream({ ...call, dispatcher }, method, req, budget, wire, request);
  } catch (error) {
    wire.fail(error);
    throw error;
  } finally {
    wire.end();
  }
}

/** The 1.0 SSE stream itself; `wire` records the answer's status, headers and every SSE record as it is parsed. */
async function* httpStream(
  call: StreamCall,
  method: StreamMethod,
  { url, headers, body, id }: StreamHttpRequest,
  budget: StreamBudget,
  wire?: WireRecorder,
  loaded?: typeof import('undici').request,
): AsyncGenerator<SequencedRecord> {
  const { iface } = call;
  const rest = iface.binding === 'http+json';
  const where = redactUrl(url);
  let res: Dispatcher.ResponseData;
  try {
    const request = loaded ?? (await loadUndici()).request;
    res = await request(withQuery(url, call.query), {
      method: 'POST',
      headers,
      body,
      dispatcher: call.dispatcher,
      headersTimeout: call.timeoutMs,
      // Idle limit between chunks, not a cap on the stream's length.
      bodyTimeout: call.timeoutMs,
      signal: call.signal,
    });
  } catch (error) {
    throw networkError(error, where, call.timeoutMs, call.secrets);
  }
  wire?.response(res.statusCode, flattenHeaders(res.headers));

  const type = String(res.headers['content-type'] ?? '');
  if (res.statusCode < 200 || res.statusCode >= 300 || !type.includes('text/event-stream')) {
    const text = await readSmall(res.body);
    wire?.body(text);
    const flat = { status: res.statusCode, headers: flattenHeaders(res.headers), body: text };
    // A 401/403 is an auth error whatever its body (a JSON-RPC error object included).
    assertAuthorized(flat, method, url, call);
    if (!rest && text) {
      const parsed = tryJson(text) as { error?: JsonRpcErrorObject } | undefined;
      if (parsed?.error) throw jsonRpcFailure(call, method, url, parsed as { error: JsonRpcErrorObject });
    }
    // An A2A error object in a 5xx body: the agent's own error, as on JSON-RPC (jsonrpc-errors.ts).
    const failure = rest && text ? agentServerFailure(method, res.statusCode, tryJson(text), call.secrets) : undefined;
    if (failure) throw failure;
    if (isMissingRoute(res.statusCode, text))
      throw versionMismatchError({ method, url, dialect: iface.dialect, alias: call.alias, answer: `HTTP ${res.statusCode}` });
    assertOk(flat, method, url, call.protocolVersion, call);
    throw protocolError('not_event_stream', `${method} at ${where} answered ${type || 'no content type'} instead of text/event-stream`);
  }

  const pending: EventSourceMessage[] = [];
  // The parser holds an unfinished line and the data lines of the event under way: at most MAX_EVENT_BYTES of them.
  let tooLarge = false;
  const parser = createParser({
    maxBufferSize: MAX_EVENT_BYTES,
    onEvent: (event) => {
      wire?.frame(event.event, event.data);
      pending.push(event);
    },
    onError: (error) => void (tooLarge ||= error.type === 'max-buffer-size-exceeded'),
  });
  const decoder = new TextDecoder('utf-8');
  let sequence = 0;
  let finished = false;
  try {
    try {
      for await (const chunk of res.body) {
        budget.bytes((chunk as Buffer).length);
        parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
        while (pending.length) {
          const event = pending.shift()!;
          if (!event.data.trim()) continue;
          budget.event();
          sequence++;
          yield { sequence, ...decodeStreamData(event.data, call, method, sequence, rest ? undefined : id) };
        }
        if (tooLarge) throw eventTooLargeError(call, method, sequence + 1);
      }
      parser.feed(decoder.decode());
      parser.reset({ consume: true });
      for (const event of pending.splice(0)) {
        if (!event.data.trim()) continue;
        budget.event();
        sequence++;
        yield { sequence, ...decodeStreamData(event.data, call, method, sequence, rest ? undefined : id) };
      }
      finished = true;
    } catch (error) {
      if (error instanceof MissiveError) throw error;
      throw streamBrokenError(where, sequence, networkError(error, where, call.timeoutMs, call.secrets));
    }
  } finally {
    if (!finished) res.body.destroy();
  }
}
