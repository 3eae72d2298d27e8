/**
 * `missive load`: what a run is asked to do (LoadPlan), what it reports while it runs (LoadSnapshot) and what it
 * reports at the end (LoadReport, the `--json` document and the journaled `missive.load.completed` record). The engine
 * (run.ts) takes a plan and returns a report; the CLI (cli/commands/load.ts) only parses flags into a plan and shows
 * snapshots and the report. Times are milliseconds (fractions kept); rates are per second.
 */
import type { Binding } from '../config/schema.js';

/** Open-loop: requests start on a fixed schedule whatever the answers do. Closed-loop: C virtual users, each sending its next request when its last one is answered. */
export type LoadModel = { kind: 'open'; rate: number } | { kind: 'closed'; concurrency: number };

/** One request's content; a run cycles through its inputs in order. */
export interface LoadInput {
  text?: string;
  /** A2A 1.0 parts JSON, as `send --part` builds them. */
  parts?: Array<Record<string, unknown>>;
}

export interface LoadPlan {
  /** The agent alias, group name or URL as given. */
  target: string;
  model: LoadModel;
  /** How long to send (after the warm-up), or how many requests: exactly one is set. */
  durationMs?: number;
  requests?: number;
  /** Requests sent during the warm-up are not counted in the report. */
  warmupMs: number;
  stream: boolean;
  binding?: Binding;
  /** Follow each task to a final state (by its stream, or GetTask with backoff) and report the final states. */
  untilFinal: boolean;
  inputs: LoadInput[];
  /** Journal every request as a send/stream does (slower), instead of one `load` record. */
  record: boolean;
  /** `--max-requests`: the run never sends more (a timed closed-loop run stops there; the CLI refuses plans above it). */
  maxRequests?: number;
}

/** A latency distribution, from an HDR histogram (microsecond resolution), in milliseconds. */
export interface LatencySummary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

/** One kind of failure and how often it happened; `key` is `protocol::task_not_found`, `transport::connection_refused`, `http 503`… */
export interface ErrorTally {
  key: string;
  category: string;
  code: string;
  http_status: number | null;
  count: number;
  /** The first occurrence's message, redacted. */
  first_example: string;
}

/** What the live view shows, about once a second. */
export interface LoadSnapshot {
  elapsed_ms: number;
  warming_up: boolean;
  sent: number;
  answered: number;
  in_flight: number;
  /** Achieved rate over the last few seconds. */
  rate: number;
  /** Latency over the last few seconds. */
  p50: number | null;
  p99: number | null;
  errors: number;
}

export interface LoadReport {
  target: string;
  /** The agents the requests went to (a group's members, in rank order). */
  agents: string[];
  model: LoadModel & { description: string };
  operation: 'send' | 'stream';
  binding: string;
  started_at: string;
  duration_ms: number;
  warmup_ms: number;
  requests: { sent: number; answered: number; succeeded: number; failed: number; warmup: number };
  rate: { target: number | null; achieved: number };
  latency: {
    /** Time to the answer (send) or to the stream's end (stream); open-loop measures from each request's scheduled start. */
    answer: LatencySummary;
    first_event?: LatencySummary;
    between_events?: LatencySummary;
    /** --until final: time from the request to the task's final state. */
    final_state?: LatencySummary;
  };
  /** The answer histograms, HDR-encoded (base64), for `--compare` and later analysis. */
  histograms: Record<string, string>;
  errors: ErrorTally[];
  /** Answers by kind and state: `message`, `completed`, `working`, `input_required`, `failed`… (final states with --until final). */
  outcomes: Record<string, number>;
  /** The generator itself: how far behind its schedule it fell, and whether that made the numbers unreliable. */
  generator: { max_lag_ms: number; saturated: boolean };
}

/** What the engine (run.ts, `runLoad`) is handed besides the plan. */
export interface LoadHooks {
  /** Called about once a second while the run lasts (the live view, `--ndjson`). */
  onSnapshot?: (snapshot: LoadSnapshot) => void;
  /** Aborting ends the run early (Ctrl-C): requests in flight are awaited (bounded), and the report covers what ran. */
  signal?: AbortSignal;
}
