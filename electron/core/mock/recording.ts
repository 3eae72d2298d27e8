/**
 * A recorded conversation with one agent, as `missive mock serve` replays it: the agent's card and, in the order they
 * happened, each request the agent received with everything it answered. One shape whatever the recording came from
 * (a context in the journal, a `context export` document, `history show --json` entries, or `mock record`), so the
 * matcher (match.ts) and the replaying server (server.ts) know nothing of where it came from. Secrets are already
 * redacted in every source: a recording holds none.
 */
import type { JsonObject } from '../a2a/operations.js';

/** One thing the agent answered, `offset_ms` after the request arrived (0 when the source kept no timing). */
export interface RecordedEvent {
  offset_ms: number;
  /** A2A 1.0 StreamResponse member names: a unary answer is one `task` or `message` event. */
  kind: 'task' | 'message' | 'status_update' | 'artifact_update';
  /** The A2A 1.0 JSON of that member (Task, Message, TaskStatusUpdateEvent, TaskArtifactUpdateEvent), ids as recorded. */
  body: JsonObject;
}

export interface RecordedExchange {
  /** Position in the conversation, from 0. */
  index: number;
  /** How it was asked: SendMessage or SendStreamingMessage. */
  operation: 'send' | 'stream';
  /** The request's A2A 1.0 Message JSON as recorded (messageId, contextId, taskId, parts), ids as recorded. */
  request: JsonObject;
  /** The request's text parts joined by newlines: what matching compares. */
  text: string;
  /** What the agent answered, in order; empty when it answered an error. */
  events: RecordedEvent[];
  /**
   * The A2A error the agent answered instead, when it did: missive's code (`missive::protocol::task_not_found`), its
   * message, and the A2A error's name (`TaskNotFound`, a2a-errors.ts) when the code is one of them.
   */
  error?: { code: string; message: string; a2a?: string };
  /** Push callbacks the agent sent for this exchange's task, in order (bodies as journaled, redacted). */
  callbacks?: RecordedEvent[];
}

export interface Recording {
  /** Where it came from, for messages: `context <id>`, `export <file>`, `history <file>`, `record <alias>`. */
  source: string;
  /** The agent the conversation was with (its alias in the journal). */
  agent: string;
  /** The agent's card as it was cached (A2A 1.0 JSON), or null when the source has none (the mock then makes one). */
  card: JsonObject | null;
  exchanges: RecordedExchange[];
}

/** How a request finds its recorded exchange (match.ts): see docs/mock.md. */
export type MatchMode = 'exact' | 'normalised' | 'sequence';

export type MatchResult =
  | { exchange: RecordedExchange; reason: string }
  /** No exchange matched: `closest` is the recorded request nearest to it (or null), `reason` says why none matched. */
  | { exchange: null; closest: RecordedExchange | null; reason: string };

/**
 * Finds each incoming request's exchange (match.ts, `createMatcher(recording, mode)`). It is stateful: `sequence`
 * walks the recording in order, and each mode prefers the first exchange not yet served. `misses()` are the requests
 * nothing matched, with their closest recorded request; `diff()` is the text `--strict` prints at shutdown (empty when
 * every request matched).
 */
export interface Matcher {
  match(request: JsonObject, operation: 'send' | 'stream'): MatchResult;
  misses(): Array<{ request: JsonObject; closest: RecordedExchange | null; reason: string }>;
  diff(): string;
}

/** Where `mock serve` reads its recording from (load-recording.ts, `loadRecording(core, source, cwd)`). */
export type RecordingSource = { context: string } | { history: string } | { export: string };
