/** What every A2A call carries, whichever binding and dialect speaks it. */
import type { Dispatcher } from 'undici';
import type { AuthHint } from './auth-challenge.js';
import type { SelectedInterface } from './interfaces.js';
import type { GrpcTls } from './grpc-transport.js';
import type { WireCapture } from './wire.js';

export const A2A_JSON = 'application/a2a+json';

/** Renewed auth headers and their literal secrets after a 401, or null when nothing can be renewed. */
export type Reauth = () => Promise<{ headers: Record<string, string>; secrets: string[] } | null>;

/** A stream's budget: the bytes and events it may bring before it is closed (wire-limits.ts enforces it). */
export interface StreamLimits {
  maxBytes: number;
  maxEvents: number;
}

export interface BindingCall {
  iface: SelectedInterface;
  /** Service parameters (A2A-Version, extensions, extras) and, unless withheld, the agent's credentials. */
  headers: Record<string, string>;
  /** Query parameters every request URL carries (an API key `in = "query"`); their values are secrets. */
  query?: Record<string, string>;
  timeoutMs: number;
  /** Renews the credentials after a 401 (an OAuth2 token), for one retry; absent when there is nothing to renew. */
  reauth?: Reauth;
  /** The A2A version this call speaks (the dialect's, unless --protocol-version says otherwise). */
  protocolVersion: string;
  dispatcher?: Dispatcher;
  secrets?: readonly string[];
  maxResponseBytes?: number;
  /** A stream's budget of bytes and events (`[qos] max_stream_bytes`, `max_stream_events`; wire-limits.ts). */
  streamLimits?: StreamLimits;
  /** The most JSON objects and arrays one answer or stream event may hold (`[qos] max_answer_objects`). */
  maxAnswerObjects?: number;
  /** The agent's alias, for messages that suggest a next command. */
  alias?: string;
  /** Records every exchange of the call for the wire view (`--show-wire`, the GUI); absent, nothing is recorded. */
  wire?: WireCapture;
  /** gRPC: the agent's mutual TLS material (set by `connect` on its pinned origins; HTTP uses `dispatcher`). */
  grpcTls?: GrpcTls;
  /** What the card declares and what was sent, for the help of a 401/403 (set by `connect`). */
  auth?: AuthHint;
  /** Where a call reports what the user should know without failing (the core's warning channel, once per message). */
  warn?: (message: string) => void;
}
