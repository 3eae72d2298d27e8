/**
 * The wire view: every HTTP exchange (or gRPC call) of one send or stream, as it went over the wire with secrets
 * redacted. Each exchange is a row (operation, method, URL, status, duration) that expands to the request's and the
 * response's headers and bodies (JSON pretty-printed when it parses) and, for streams, every frame with its arrival
 * time after the request left (`+N ms`). Long streams scroll in a virtual list so only visible frames are rendered.
 */
import type { WireExchange } from '../../../shared/ipc/contract';
import { VirtualList } from './VirtualList';
import { CopyAs } from './CopyAs';
import { curlOfWire } from './copy-text';

/** Frames up to this many render in full (each expandable); more scroll in a virtual list, one line each. */
const FULL_FRAMES = 200;
const FRAME_ROW = 22;

/** A body as the user reads it: JSON indented when it parses, else the text as it came. */
export function prettyBody(body: string | null): string {
  if (body === null || body === '') return '';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function Headers({ headers, testId }: { headers: Record<string, string>; testId: string }) {
  const entries = Object.entries(headers);
  if (entries.length === 0) return <p className="muted">no headers</p>;
  return (
    <dl className="wire-headers" data-testid={testId}>
      {entries.map(([name, value]) => (
        <div key={name} className="wire-header">
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Body({ body, truncated, testId }: { body: string | null; truncated?: boolean; testId: string }) {
  const text = prettyBody(body);
  return (
    <>
      {text ? (
        <pre className="wire-body" data-testid={testId}>
          {text}
        </pre>
      ) : (
        <p className="muted">no body</p>
      )}
      {truncated ? <p className="muted">The body was cut at 256 KiB.</p> : null}
    </>
  );
}

type Frame = NonNullable<WireExchange['frames']>[number];
const frameTime = (f: Frame) => `+${Math.round(f.at_ms)} ms`;

function FrameLine({ frame }: { frame: Frame }) {
  return (
    <>
      <span className="wire-at">{frameTime(frame)}</span>
      <span className="wire-event">{frame.event ?? 'message'}</span>
      <span className="wire-data" title={frame.data}>
        {frame.data}
      </span>
    </>
  );
}

function Frames({ exchange }: { exchange: WireExchange }) {
  const frames = exchange.frames ?? [];
  if (frames.length === 0 && !exchange.frames_dropped) return null;
  return (
    <div className="wire-frames">
      <h4>
        Stream frames ({frames.length}
        {exchange.frames_dropped ? `, ${exchange.frames_dropped} more not kept` : ''})
      </h4>
      {frames.length <= FULL_FRAMES ? (
        <ol className="wire-frame-list" data-testid="wire-frames">
          {frames.map((f, i) => (
            <li key={i}>
              <details>
                <summary className="wire-frame">
                  <FrameLine frame={f} />
                </summary>
                <pre className="wire-body">{prettyBody(f.data)}</pre>
              </details>
            </li>
          ))}
        </ol>
      ) : (
        <VirtualList
          testId="wire-frames"
          items={frames}
          rowHeight={FRAME_ROW}
          height={Math.min(400, frames.length * FRAME_ROW)}
          render={(f) => (
            <div className="wire-frame">
              <FrameLine frame={f} />
            </div>
          )}
        />
      )}
    </div>
  );
}

/** A JSON-RPC error object `{code, message}` inside a body or frame, else null. */
function jsonRpcErrorIn(text: string | null | undefined): { code: number | string; message: string } | null {
  if (!text || !text.includes('"error"')) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    const error = typeof parsed === 'object' && parsed !== null && 'jsonrpc' in parsed && 'error' in parsed ? parsed.error : null;
    if (typeof error !== 'object' || error === null) return null;
    const code = 'code' in error && (typeof error.code === 'number' || typeof error.code === 'string') ? error.code : '?';
    const message = 'message' in error && typeof error.message === 'string' ? error.message : '';
    return { code, message };
  } catch {
    return null;
  }
}

/**
 * The JSON-RPC error an exchange answered, even with HTTP 200 (JSON-RPC reports its errors in the body): in the
 * response body, or in a stream frame.
 */
export function jsonRpcErrorOf(x: WireExchange): { code: number | string; message: string } | null {
  return jsonRpcErrorIn(x.response?.body) ?? (x.frames ?? []).map((f) => jsonRpcErrorIn(f.data)).find((e) => e !== null) ?? null;
}

function statusOf(x: WireExchange): string {
  if (!x.response) return x.error ? x.error.code : 'no response';
  const rpc = jsonRpcErrorOf(x);
  return rpc ? `${x.response.status} · JSON-RPC error ${rpc.code}` : String(x.response.status);
}
const failed = (x: WireExchange) => !x.response || x.response.status >= 400 || !!x.error || jsonRpcErrorOf(x) !== null;
const statusClass = (x: WireExchange) => (failed(x) ? 'wire-status bad' : 'wire-status ok');

function Exchange({ exchange, open }: { exchange: WireExchange; open: boolean }) {
  const x = exchange;
  const rpc = jsonRpcErrorOf(x);
  return (
    <details className="wire-exchange" open={open} data-testid="wire-exchange">
      <summary>
        <span className="wire-op">{x.operation}</span> <span className="wire-method">{x.request.method}</span> <span className="wire-url">{x.request.url}</span>{' '}
        <span className={statusClass(x)} data-testid="wire-status" data-failed={failed(x) ? 'true' : 'false'}>
          {statusOf(x)}
        </span>{' '}
        <span className="muted">{x.duration_ms === null ? '' : `${Math.round(x.duration_ms)} ms`}</span>
      </summary>
      <div className="wire-detail">
        <div className="wire-side">
          <h4>Request {x.request.protocol === 'grpc' ? '(gRPC: method, metadata, message JSON)' : ''}</h4>
          <Headers headers={x.request.headers} testId="wire-request-headers" />
          <Body body={x.request.body} truncated={x.request.truncated} testId="wire-request-body" />
          <CopyAs label={`${x.operation} request`} curl={async () => curlOfWire(x.request)} />
        </div>
        <div className="wire-side">
          <h4>Response</h4>
          {x.response ? (
            <>
              <Headers headers={x.response.headers} testId="wire-response-headers" />
              {x.frames?.length ? null : <Body body={x.response.body} truncated={x.response.truncated} testId="wire-response-body" />}
            </>
          ) : (
            <p className="muted">No response arrived.</p>
          )}
          {x.response && rpc ? (
            <p className="wire-error" data-testid="wire-rpc-error">
              <strong className="error-code">JSON-RPC error {rpc.code}</strong> {rpc.message}{' '}
              <span className="muted">(HTTP {x.response.status}: JSON-RPC reports errors in the body)</span>
            </p>
          ) : null}
          {x.error ? (
            <p className="wire-error">
              <strong className="error-code">{x.error.code}</strong> {x.error.message}
            </p>
          ) : null}
        </div>
      </div>
      <Frames exchange={x} />
    </details>
  );
}

export function WireView({ exchanges }: { exchanges: WireExchange[] | null | undefined }) {
  if (!exchanges || exchanges.length === 0) return <p className="muted">No exchanges were captured for this call.</p>;
  return (
    <div className="wire" data-testid="wire">
      <p className="muted">
        {exchanges.length} exchange(s) as they went over the wire; credentials are shown redacted. Open one for its headers, bodies
        {exchanges.some((x) => x.frames?.length) ? ' and stream frames' : ''}.
      </p>
      {exchanges.map((x, i) => (
        <Exchange key={x.id} exchange={x} open={exchanges.length === 1 || i === exchanges.length - 1} />
      ))}
    </div>
  );
}
