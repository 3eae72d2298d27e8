/**
 * The defaults of the `[qos]` bounds on what an agent may send (a2a/wire-limits.ts enforces them). Each is far above
 * what a normal agent sends, and far below what fills a disk or a heap; docs/config.md says why.
 */
const MiB = 1024 * 1024;

/** `[qos] max_stream_bytes`: 256 MiB per stream (a 1 MiB event every 20 ms grew the journal 3.4 GB a minute). */
export const DEFAULT_MAX_STREAM_BYTES = 256 * MiB;
/** `[qos] max_stream_events`: 200,000 per stream, twice the 100,000-event stream of the streaming benchmark. */
export const DEFAULT_MAX_STREAM_EVENTS = 200_000;
/** `[qos] max_answer_objects`: 100,000 JSON objects and arrays in one answer or stream event. */
export const DEFAULT_MAX_ANSWER_OBJECTS = 100_000;
/** `gateway run`'s jobs at once (follow and operator jobs together) without `--concurrency` or `[gateway] job_concurrency`. */
export const DEFAULT_GATEWAY_CONCURRENCY = 16;
