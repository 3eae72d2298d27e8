/**
 * The `fetch` the SDK's transports use: undici over missive's pooled dispatcher, with missive's rules. Redirects are
 * never followed (so credentials never follow one), answers are size-capped, time limits are missive's (the whole
 * answer for unary calls; the headers, then the gap between chunks, for streams), and an HTTP failure without a JSON
 * body becomes a one-line missive error here, so no HTML page reaches a message; a 401/403 becomes the auth error
 * (`auth::unauthorized` / `auth::forbidden`, exit 77) as on the 1.0 wire. Other JSON error bodies pass through for
 * the SDK to decode into its typed A2A errors. JSON nested deeper than MAX_JSON_DEPTH, a whole answer or one SSE event,
 * is refused here (too_deeply_nested, exit 76) before the SDK parses it, and so is an answer or event holding more JSON
 * objects than `[qos] max_answer_objects`, an SSE event still unfinished at 16 MiB and a stream past its budget of bytes
 * (wire-limits.ts; the events are counted in sse.ts). With a wire capture (`call.wire`) each fetch is
 * recorded for the wire view: the request as the SDK wrote it, the answer, and for streams every SSE record as it arrives.
 * A v0.3 JSON-RPC result (or SSE event) without its `kind` discriminator gets it from its shape before the SDK reads it
 * (result-kinds.ts), with one warning per agent through `call.warn`; the wire view keeps what was received.
 */
import { createParser } from 'eventsource-parser';
import { MissiveError, transportError, withHttpStatus } from '../../../shared/errors.js';
import { isTooDeep, tooDeepError } from '../security/json-depth.js';
import { redactUrl } from '../security/redact.js';
import type { BindingCall } from './binding-call.js';
import { assertAuthorized, networkError, sharedDispatcher, timedDispatcher, tryJson, withQuery } from './http.js';
import { oneLine } from './remote-text.js';
import { agentServerFailure } from './jsonrpc-errors.js';
import { loadUndici, loadUndiciFetch } from './undici.js';
import { isMissingRoute, versionMismatchError } from './version-mismatch.js';
import type { WireRecorder } from './wire.js';
import { completeJsonRpcBody, kindlessWarning, RESULT_KINDS, type ResultKind, type ResultOrigin } from './result-kinds.js';
import { assertFewObjects, eventTooLargeError, MAX_EVENT_BYTES, type StreamBudget } from './wire-limits.js';

/** The last non-2xx HTTP answer of a call, so an SDK error can be reported with its status. */
export interface HttpTrace {
  status: number | null;
  url: string | null;
}

const NULL_BODY = new Set([101, 204, 205, 304]);
const DEFAULT_MAX = 16 * 1024 * 1024;

const timeoutReason = (ms: number) => new DOMException(`no answer within ${ms} ms`, 'TimeoutError');

async function readLimited(res: Response, max: number, where: string): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw transportError('response_too_large', `response from ${where} exceeds ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Restarts `arm` on every chunk; the stream errors with a TimeoutError when a gap exceeds the limit. */
function idleLimited(body: ReadableStream<Uint8Array>, ms: number, abort: (reason: unknown) => void): ReadableStream<Uint8Array> {
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    // unref: a stream the consumer abandoned must not hold the process open until the limit.
    timer = setTimeout(() => abort(timeoutReason(ms)), ms).unref();
  };
  arm();
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        arm();
        controller.enqueue(chunk);
      },
      flush: () => clearTimeout(timer),
    }),
  );
}

/**
 * Errors the stream instead of passing on a chunk that: completes an SSE event nested too deep (tooDeepError(`what`)) or
 * holding too many JSON objects (too_many_objects), leaves an event unfinished past MAX_EVENT_BYTES (event_too_large),
 * or spends the stream's budget of bytes (stream_too_large). The SDK's own parser, after this one, never holds more.
 */
function eventLimited(
  body: ReadableStream<Uint8Array>,
  limits: { what: string; call: BindingCall; method: string; budget?: StreamBudget },
): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  let failure: MissiveError | null = null;
  let events = 0;
  const fail = (error: unknown) => void (failure ??= error as MissiveError);
  const parser = createParser({
    maxBufferSize: MAX_EVENT_BYTES,
    onEvent: (event) => {
      if (failure) return;
      events++;
      if (isTooDeep(event.data)) return fail(tooDeepError(limits.what));
      try {
        assertFewObjects(event.data, `event #${events} of the ${limits.method} stream`, limits.call);
      } catch (error) {
        fail(error);
      }
    },
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') fail(eventTooLargeError(limits.call, limits.method, events + 1));
    },
  });
  const check = (controller: TransformStreamDefaultController<Uint8Array>, chunk?: Uint8Array) => {
    if (failure) controller.error(failure);
    else if (chunk) controller.enqueue(chunk);
  };
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        try {
          limits.budget?.bytes(chunk.byteLength);
        } catch (error) {
          return controller.error(error);
        }
        parser.feed(decoder.decode(chunk, { stream: true }));
        check(controller, chunk);
      },
      flush(controller) {
        parser.feed(decoder.decode());
        parser.reset({ consume: true });
        check(controller);
      },
    }),
  );
}

/** The body with every SSE record recorded as a frame as it arrives; the exchange ends or fails with the stream. */
function wireTapped(body: ReadableStream<Uint8Array>, wire: WireRecorder, failure: (error: unknown) => MissiveError | null): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = createParser({ onEvent: (event) => wire.frame(event.event, event.data) });
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          parser.feed(decoder.decode());
          parser.reset({ consume: true });
          wire.end();
          controller.close();
          return;
        }
        parser.feed(decoder.decode(value, { stream: true }));
        controller.enqueue(value);
      } catch (error) {
        const failed = failure(error);
        if (failed) wire.fail(failed);
        else wire.end();
        controller.error(error);
      }
    },
    // The reader stopped (done with the stream, or a limit above refused an event).
    cancel(reason) {
      if (reason instanceof MissiveError) wire.fail(reason);
      else wire.end();
      return reader.cancel(reason);
    },
  });
}

/** Each SSE record re-emitted with the kinds its JSON-RPC result lacks completed; an ambiguous one errors the stream. */
function kindCompleted(
  body: ReadableStream<Uint8Array>,
  allowed: readonly ResultKind[],
  origin: ResultOrigin,
  onCompleted: () => void,
): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let event = 0;
  let failure: MissiveError | null = null;
  let out: string[] = [];
  const parser = createParser({
    onEvent: (record) => {
      if (failure) return;
      let data = record.data;
      if (data.trim()) {
        event++;
        try {
          const completed = completeJsonRpcBody(data, allowed, { ...origin, event });
          if (completed.changed) onCompleted();
          data = completed.text;
        } catch (error) {
          failure = error as MissiveError;
          return;
        }
      }
      out.push(
        `${record.event ? `event: ${record.event}\n` : ''}${record.id ? `id: ${record.id}\n` : ''}${data
          .split('\n')
          .map((line) => `data: ${line}`)
          .join('\n')}\n\n`,
      );
    },
  });
  const flushTo = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (out.length) controller.enqueue(encoder.encode(out.join('')));
    out = [];
    if (failure) controller.error(failure);
  };
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        flushTo(controller);
      },
      flush(controller) {
        parser.feed(decoder.decode());
        parser.reset({ consume: true });
        flushTo(controller);
      },
    }),
  );
}

/** The SDK's request headers (a record, a Headers or pairs) as pairs, for the wire view. */
const headerPairs = (headers: RequestInit['headers']): Iterable<[string, string]> => new Headers(headers as ConstructorParameters<typeof Headers>[0]).entries();

export interface SdkFetchOptions {
  call: BindingCall;
  /** The A2A operation, for messages. */
  method: string;
  trace: HttpTrace;
  /** A stream's budget: the bytes of its body count against it. */
  budget?: StreamBudget;
}

/** Where results may lack `kind`: the v0.3 JSON-RPC answers of the operations that carry tasks, messages and events. */
function kindCompletion(
  call: BindingCall,
  method: string,
  url: string,
): { allowed: readonly ResultKind[]; origin: ResultOrigin; completed: () => void } | null {
  const allowed = RESULT_KINDS[method];
  if (!allowed || call.iface.binding !== 'json-rpc' || call.iface.dialect !== '0.3') return null;
  const agent = call.alias ? `"${call.alias}"` : `at ${redactUrl(url)}`;
  const wireMethod = WIRE_METHODS[method] ?? method;
  return { allowed, origin: { agent, wireMethod }, completed: () => call.warn?.(kindlessWarning(agent)) };
}

const WIRE_METHODS: Record<string, string> = {
  SendMessage: 'message/send',
  SendStreamingMessage: 'message/stream',
  SubscribeToTask: 'tasks/resubscribe',
  GetTask: 'tasks/get',
  CancelTask: 'tasks/cancel',
};

export function sdkFetch({ call, method, trace, budget }: SdkFetchOptions): typeof fetch {
  const fetchImpl = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const where = redactUrl(url);
    const accept = new Headers(init.headers).get('accept') ?? '';
    const streaming = accept.includes('text/event-stream');
    const controller = new AbortController();
    const abort = (reason: unknown) => controller.abort(reason);
    init.signal?.addEventListener('abort', () => abort(init.signal!.reason), { once: true });
    if (init.signal?.aborted) abort(init.signal.reason);
    // Loaded first: the wire view times the exchange, not the loading of undici on the first request (the request
    // modules every exchange shares, then fetch, which only the SDK's transports use).
    await loadUndici();
    const { fetch: undiciFetch } = await loadUndiciFetch();
    const dispatcher = call.dispatcher ?? (await sharedDispatcher());
    // Unary: the whole answer within the timeout. Stream: the headers within it, then each gap between chunks.
    const deadline = setTimeout(() => abort(timeoutReason(call.timeoutMs)), call.timeoutMs);
    const wire = call.wire?.begin(
      method,
      {
        protocol: 'http',
        method: init.method ?? 'GET',
        url: withQuery(url, call.query),
        headers: headerPairs(init.headers),
        body: typeof init.body === 'string' ? init.body : null,
        stream: streaming,
      },
      call.secrets,
    );
    // A stream's exchange is ended by its body (wireTapped), every other one here.
    let handedOff = false;
    let res: Response;
    try {
      res = (await undiciFetch(withQuery(url, call.query), {
        method: init.method,
        headers: init.headers as Record<string, string>,
        body: init.body as string | undefined,
        dispatcher: wire ? timedDispatcher(dispatcher, wire.sent) : dispatcher,
        redirect: 'manual',
        signal: controller.signal,
      })) as unknown as Response;
    } catch (error) {
      clearTimeout(deadline);
      const failure = networkError(controller.signal.reason ?? error, where, call.timeoutMs, call.secrets);
      wire?.fail(failure);
      throw failure;
    }
    wire?.response(res.status, res.headers);
    try {
      if ((res.status >= 300 && res.status < 400) || res.type === 'opaqueredirect') {
        const location = res.headers.get('location');
        await res.body?.cancel();
        throw transportError(
          'redirect_not_followed',
          `${method} at ${where} answered HTTP ${res.status}${location ? ` (a redirect to ${redactUrl(new URL(location, url).href)})` : ''}; missive does not follow redirects, so no credentials go elsewhere`,
          'Register the agent at the URL it redirects to, if you trust it.',
        );
      }
      const type = res.headers.get('content-type') ?? '';
      if (streaming && res.ok && type.includes('text/event-stream') && res.body) {
        clearTimeout(deadline);
        const raw = res.body as ReadableStream<Uint8Array>;
        // Closed on purpose (the reader is done, Ctrl-C): the exchange just ends; anything else is its failure.
        const failure = (error: unknown) =>
          (controller.signal.reason as Error | undefined)?.name === 'AbortError'
            ? null
            : networkError(controller.signal.reason ?? error, where, call.timeoutMs, call.secrets);
        const tapped = wire ? wireTapped(raw, wire, failure) : raw;
        handedOff = true;
        const limited = eventLimited(idleLimited(tapped, call.timeoutMs, abort), {
          what: `an event of the ${method} stream from ${where}`,
          call,
          method,
          budget,
        });
        const kinds = kindCompletion(call, method, url);
        const body = kinds ? kindCompleted(limited, kinds.allowed, kinds.origin, kinds.completed) : limited;
        return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
      }
      const text = await readLimited(res, call.maxResponseBytes ?? DEFAULT_MAX, where);
      wire?.body(NULL_BODY.has(res.status) ? null : text);
      if (isTooDeep(text)) throw tooDeepError(`the ${method} answer from ${where}`);
      if (res.ok) assertFewObjects(text, `the ${method} answer`, call);
      if (!res.ok) {
        trace.status = res.status;
        trace.url = url;
        // A 401/403 is an auth error whatever its body: the SDK never sees it.
        assertAuthorized({ status: res.status, headers: Object.fromEntries(res.headers.entries()), body: text }, method, url, call);
        if (isMissingRoute(res.status, text)) {
          throw versionMismatchError({
            method,
            url,
            dialect: call.iface.dialect,
            alias: call.alias,
            answer: `HTTP ${res.status}${text.trim() ? ` (${oneLine(text, 80)})` : ''}`,
          });
        }
        const body = tryJson(text);
        if (body === undefined)
          throw withHttpStatus(
            transportError('http_status', `${method} at ${where} answered HTTP ${res.status}${text.trim() ? `: ${oneLine(text)}` : ''}`),
            res.status,
          );
        const failure = call.iface.binding === 'http+json' ? agentServerFailure(method, res.status, body, call.secrets) : undefined;
        if (failure) throw withHttpStatus(failure, res.status);
      }
      const kinds = res.ok ? kindCompletion(call, method, url) : null;
      const completed = kinds ? completeJsonRpcBody(text, kinds.allowed, kinds.origin) : null;
      if (completed?.changed) kinds!.completed();
      return new Response(NULL_BODY.has(res.status) ? null : (completed?.text ?? text), {
        status: res.status,
        statusText: res.statusText,
        headers: res.headers,
      });
    } catch (error) {
      const failure = error instanceof MissiveError ? error : networkError(controller.signal.reason ?? error, where, call.timeoutMs, call.secrets);
      wire?.fail(failure);
      throw failure;
    } finally {
      clearTimeout(deadline);
      if (!handedOff) wire?.end();
    }
  };
  return fetchImpl as unknown as typeof fetch;
}
