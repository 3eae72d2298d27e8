/**
 * `missive adapter stdio`: the IPC contract over standard input and output, one NDJSON frame per line (frames.ts).
 * The same handler registry as the desktop app (`createRegistry`, no directory picker: `dialogs.chooseDirectory`
 * answers null). `single-shot` answers the first frame and stops; `long-running` answers frames until end of input,
 * several at once (at most MAX_IN_FLIGHT; each reply carries its request's id, in the order they finish). Events of the
 * contract's EVENT_CHANNELS are written as `{"event","id"?,"payload"}` frames, `id` naming the request that caused
 * them when there is one. The output receives frames only; warnings go wherever the caller sends them (stderr).
 * Every frame is scrubbed of the secrets behind the profile's auth refs before it is written (frames.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { EventChannel } from '../../../shared/ipc/contract.js';
import type { Core } from '../handle.js';
import { createRegistry } from '../ipc/registry.js';
import { authRefEnvNames, frameError, frameSecrets, handleFrameText, MAX_FRAME_BYTES, scrubFrame, type FrameId, type ReplyFrame } from './frames.js';

export type StdioMode = 'single-shot' | 'long-running';

/** How many requests of one long-running adapter run at once; further frames wait (input is read no faster). */
export const MAX_IN_FLIGHT = 16;

/** Events a request causes while it runs (its stream, its members, its device code): they carry the request's id. */
const REQUEST_EVENTS: ReadonlySet<EventChannel> = new Set(['messages.stream.event', 'collectives.member', 'auth.deviceCode']);

export interface StdioAdapterOptions {
  core: Core;
  /** The directory relative paths in inputs (files, output directories) resolve against. */
  cwd: string;
  mode: StdioMode;
  /** The frames coming in: byte or string chunks (process.stdin). */
  input: AsyncIterable<Buffer | string>;
  /** Writes one output line (a frame plus "\n"). */
  write: (line: string) => void;
  /** Stops reading new frames (SIGINT, SIGTERM); requests already running still get their reply. */
  signal?: AbortSignal;
  /** Push `events.appended` (new journal rows) every this many ms, as the desktop app's Events view does. */
  followEventsMs?: number;
}

export interface StdioAdapterResult {
  /** Frames answered. */
  frames: number;
  /** Of those, answered with an error. */
  errors: number;
  /** single-shot: the reply's exit code (0 when ok); long-running: 0. */
  exitCode: number;
}

/**
 * Splits byte chunks into lines (LF, optional CR before it) without ever holding more than MAX_FRAME_BYTES of one line:
 * a longer line is dropped as it arrives and reported as `null` when its end comes.
 */
export async function* frameLines(
  input: AsyncIterable<Buffer | string>,
  signal?: AbortSignal,
  maxBytes: number = MAX_FRAME_BYTES,
): AsyncGenerator<string | null> {
  let parts: Buffer[] = [];
  let size = 0;
  let overflow = false;
  const iterator = input[Symbol.asyncIterator]();
  const aborted = new Promise<'aborted'>((resolve) => {
    if (signal?.aborted) resolve('aborted');
    signal?.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  const take = (piece: Buffer) => {
    if (overflow) return;
    if (size + piece.length > maxBytes) {
      overflow = true;
      parts = [];
      size = 0;
      return;
    }
    parts.push(piece);
    size += piece.length;
  };
  const finishLine = (): string | null => {
    const line = overflow ? null : Buffer.concat(parts, size).toString('utf8').replace(/\r$/, '');
    parts = [];
    size = 0;
    overflow = false;
    return line;
  };
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next === 'aborted' || next.done) break;
      const chunk = typeof next.value === 'string' ? Buffer.from(next.value, 'utf8') : next.value;
      let start = 0;
      for (let nl = chunk.indexOf(0x0a, start); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
        take(chunk.subarray(start, nl));
        yield finishLine();
        start = nl + 1;
      }
      if (start < chunk.length) take(chunk.subarray(start));
    }
    // A last line without a newline still counts.
    if (size > 0 || overflow) yield finishLine();
  } finally {
    void iterator.return?.();
  }
}

/** Runs the adapter until end of input (long-running) or the first frame is answered (single-shot). */
export async function runStdioAdapter(options: StdioAdapterOptions): Promise<StdioAdapterResult> {
  const { core, cwd, mode, write } = options;
  const requestIds = new AsyncLocalStorage<FrameId>();
  // The auth refs' env vars, read now and again after every frame (one may add a ref), so that writing a frame (an
  // event as well as a reply) never waits.
  let refEnvNames = await authRefEnvNames(core);
  const writeFrame = (frame: unknown) => write(`${JSON.stringify(scrubFrame(frame, frameSecrets(core, refEnvNames)))}\n`);
  const registry = createRegistry({
    core,
    cwd,
    eventSource: 'adapter',
    sessionSecrets: false,
    tailEventsMs: mode === 'long-running' ? options.followEventsMs : undefined,
    emit: (channel, payload) => {
      const id = REQUEST_EVENTS.has(channel) ? requestIds.getStore() : undefined;
      writeFrame(id === undefined ? { event: channel, payload } : { event: channel, id, payload });
    },
  });
  const result: StdioAdapterResult = { frames: 0, errors: 0, exitCode: 0 };
  const answer = async (line: string | null): Promise<ReplyFrame> => {
    const reply =
      line === null
        ? frameError(null, 'frame_too_large', `a frame is one line of at most ${MAX_FRAME_BYTES} bytes`)
        : await handleFrameText(registry, line, (id, call) => requestIds.run(id, call));
    result.frames++;
    if (!reply.ok) result.errors++;
    // A store that failed for a moment keeps the names read last (the reply says what failed, if anything).
    refEnvNames = await authRefEnvNames(core).catch(() => refEnvNames);
    writeFrame(reply);
    return reply;
  };
  const inFlight = new Set<Promise<unknown>>();
  try {
    for await (const line of frameLines(options.input, options.signal)) {
      if (line !== null && line.trim() === '') continue;
      if (mode === 'single-shot') {
        const reply = await answer(line);
        result.exitCode = reply.ok ? 0 : reply.error.exit_code;
        return result;
      }
      const running = answer(line).finally(() => inFlight.delete(running));
      inFlight.add(running);
      if (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
    }
    if (mode === 'single-shot') {
      writeFrame(frameError(null, 'no_frame', 'the input ended before a frame arrived'));
      result.errors++;
      result.exitCode = 64;
    }
    await Promise.all(inFlight);
    return result;
  } finally {
    await Promise.allSettled(inFlight);
    await registry.dispose();
  }
}
