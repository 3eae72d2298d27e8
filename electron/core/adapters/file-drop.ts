/**
 * `missive adapter file-drop`: the IPC contract over files. Producers drop `<stem>.json` frames (frames.ts) into the
 * inbox atomically (write a temp file, then rename). The adapter claims each by renaming it to a dotted claim name
 * (file-drop-claims.ts), runs it with the desktop app's handler registry, publishes the reply once as
 * `outbox/<stem>.result.json` (ok) or `outbox/<stem>.error.json` (not ok) without ever overwriting (file-drop-publish.ts),
 * then archives the input: to `--processed` (deleted without it), or to `--error-dir` when the reply is an error and
 * that flag is given. The reply file is the reply frame plus `"events"`: the contract events the request caused
 * (stream events, collective members, device codes), in order, at most MAX_EVENTS_PER_FILE (`events_dropped` counts
 * the rest). A reply already in the outbox for a stem means that stem was answered: its input is archived, not re-run.
 * The inbox is untrusted: a claimed file is read only when it is a regular file, opened without following a symlink
 * (file-drop-open.ts), else answered `not_a_regular_file` and deleted; a name too long to claim is claimed under a
 * short stem and answered `file_name_too_long` unread (file-drop-claims.ts), once, not warned about every rescan.
 *
 * Recovery at start: a claim whose adapter died is finished without running anything twice — archived when its reply
 * exists, run again when its channel only reads (channel-effects.ts), answered with `file_drop_interrupted` when it
 * has effects (it may already have reached an agent). `once` processes the inbox as it is and returns; `watch` goes on
 * (fs.watch plus a rescan every RESCAN_MS) until its signal aborts, then lets the files in flight finish.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { promises as fs, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import pLimit from 'p-limit';
import type { EventChannel } from '../../../shared/ipc/contract.js';
import { MissiveError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { createRegistry } from '../ipc/registry.js';
import { channelEffect, SECRET_INPUT_CHANNELS } from './channel-effects.js';
import { claimName, errorName, inputStem, isStale, MAX_STEM_BYTES, newClaim, parseClaim, resultName, stemTooLong, type Claim } from './file-drop-claims.js';
import { openRegularFile, readAtMost } from './file-drop-open.js';
import { archive, exists, publishOnce, tempOwner } from './file-drop-publish.js';
import { errorFrame, frameError, handleFrame, MAX_FRAME_BYTES, parseFrameText, type ReplyFrame } from './frames.js';
import { isAlive } from '../pid.js';

export type FileDropMode = 'once' | 'watch';

/** Files run at once; further ones wait (in name order). */
export const FILE_DROP_CONCURRENCY = 8;
/** Watch mode rescans the inbox this often, in case fs.watch missed a rename (network filesystems, overflow). */
export const RESCAN_MS = 1000;
/** Events kept in one reply file. */
export const MAX_EVENTS_PER_FILE = 1000;

export interface FileDropDirs {
  inbox: string;
  outbox: string;
  /** Where inputs go once answered; null: deleted. */
  processed: string | null;
  /** Where inputs whose reply is an error go; null: same as processed. */
  errorDir: string | null;
}

export interface FileDropOptions extends FileDropDirs {
  core: Core;
  /** The directory relative paths in inputs resolve against. */
  cwd: string;
  mode: FileDropMode;
  /** Stops watching (watch mode); files in flight still get their reply. */
  signal?: AbortSignal;
  /** One line for the operator (stderr), without the newline. */
  warn: (line: string) => void;
  /**
   * Test seam: runs right after each fresh claim, before the claimed file is read, with the claim's path (the CLI
   * passes a sleep when testPauseAfterClaimMs is set; tests swap the claimed file here).
   */
  afterClaim?: (claimPath: string) => Promise<void> | void;
}

export interface FileDropResult {
  /** Inputs answered with a result file. */
  results: number;
  /** Inputs answered with an error file. */
  errors: number;
  /** Stale claims finished at start (counted in results/errors too when they got a reply now). */
  recovered: number;
  /** Inputs whose stem already had a reply (archived, not run). */
  duplicates: number;
  /** Inputs that could not be answered (I/O failures); they stay claimed or in the inbox. */
  failed: number;
  /** 0 when every input got a reply file; 74 when some failed. */
  exitCode: number;
}

/** The pause-after-claim test hook: only when NODE_ENV=test and MISSIVE_TEST_FILE_DROP_PAUSE_AFTER_CLAIM_MS is set. */
export function testPauseAfterClaimMs(env: NodeJS.ProcessEnv): number | undefined {
  if (env.NODE_ENV !== 'test') return undefined;
  const ms = Number(env.MISSIVE_TEST_FILE_DROP_PAUSE_AFTER_CLAIM_MS);
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, 600_000) : undefined;
}

/** Requests a reply covers, with the events they caused. */
interface RequestScope {
  events: Array<{ event: EventChannel; payload: unknown }>;
  dropped: number;
}

const interrupted = (channel: string) =>
  new MissiveError(
    'orchestration',
    'file_drop_interrupted',
    `the adapter stopped after claiming this ${channel} frame and before answering it; it was not run again because it may already have taken effect`,
    {
      help: 'Check `missive history list` and `missive task list` for what reached the agent, then resubmit the frame if it did not.',
    },
  );

const nameTooLong = () =>
  frameError(
    null,
    'file_name_too_long',
    `the inbox file name is too long to claim (a stem of at most ${MAX_STEM_BYTES} bytes in UTF-8 before .json, or less where the filesystem allows less); the file was not read`,
  );

/** Runs the adapter: recovery, then the inbox (once) or the inbox as it fills (watch). */
export async function runFileDropAdapter(options: FileDropOptions): Promise<FileDropResult> {
  const { core, cwd, inbox, outbox, warn } = options;
  const scopes = new AsyncLocalStorage<RequestScope>();
  const registry = createRegistry({
    core,
    cwd,
    eventSource: 'adapter',
    sessionSecrets: false,
    emit: (channel, payload) => {
      const scope = scopes.getStore();
      if (!scope) return;
      if (scope.events.length < MAX_EVENTS_PER_FILE) scope.events.push({ event: channel, payload });
      else scope.dropped++;
    },
  });
  const result: FileDropResult = { results: 0, errors: 0, recovered: 0, duplicates: 0, failed: 0, exitCode: 0 };
  const limit = pLimit(FILE_DROP_CONCURRENCY);
  /** Stems queued or running in this process (so a rescan does not queue them twice). */
  const busy = new Set<string>();
  const running = new Set<Promise<void>>();

  const replyExists = async (stem: string) => (await exists(join(outbox, resultName(stem)))) || (await exists(join(outbox, errorName(stem))));

  /**
   * Reads a claimed file as a frame: too large → an error reply without reading it whole; not a regular file (swapped
   * for a symlink, FIFO or device after the claim) → an error reply, unread, and `refused` (the entry is removed).
   */
  const readFrame = async (path: string): Promise<{ ok: true; frame: unknown } | { ok: false; reply: ReplyFrame; refused?: true }> => {
    const opened = await openRegularFile(path);
    if (!opened.ok) {
      return {
        ok: false,
        refused: true,
        reply: frameError(null, 'not_a_regular_file', `the claimed inbox file is ${opened.what}, not a regular file; it was not read`),
      };
    }
    try {
      const tooLarge = frameError(null, 'frame_too_large', `a frame file is at most ${MAX_FRAME_BYTES} bytes (this one has ${opened.size})`);
      if (opened.size > MAX_FRAME_BYTES) return { ok: false, reply: tooLarge };
      const bytes = await readAtMost(opened.handle, MAX_FRAME_BYTES);
      return bytes === null ? { ok: false, reply: tooLarge } : parseFrameText(bytes.toString('utf8'));
    } finally {
      await opened.handle.close();
    }
  };

  /** Publishes the reply of a claimed input and archives the input (`remove`: deletes it instead). */
  const finish = async (claim: Claim, reply: ReplyFrame, scope: RequestScope | null, channel = '', remove = false): Promise<void> => {
    const body: Record<string, unknown> = { ...reply, events: scope?.events ?? [] };
    if (scope && scope.dropped > 0) body.events_dropped = scope.dropped;
    const name = reply.ok ? resultName(claim.stem) : errorName(claim.stem);
    const published = await publishOnce(join(outbox, name), `${JSON.stringify(body, null, 2)}\n`);
    if (published === 'exists') {
      result.duplicates++;
      warn(`file-drop: ${claim.stem}.json: ${name} appeared while it ran; the reply was not written again`);
    } else if (reply.ok) result.results++;
    else result.errors++;
    // An input holding a secret is deleted, never archived: the secret must not stay on disk. So is an entry that was
    // not a regular file when read (a symlink, a FIFO): the link goes, what it points at is not touched.
    const keepIn = remove || SECRET_INPUT_CHANNELS.has(channel) ? null : reply.ok ? options.processed : (options.errorDir ?? options.processed);
    await archive(join(inbox, claim.name), keepIn, `${claim.stem}.json`);
  };

  /** Runs one claimed input (fresh or recovered) to its reply. */
  const process_ = async (claim: Claim, recovered: boolean): Promise<void> => {
    const path = join(inbox, claim.name);
    if (await replyExists(claim.stem)) {
      // Answered already (a crash between reply and archive, or a reused stem): never run twice.
      if (!recovered) {
        result.duplicates++;
        warn(
          `file-drop: ${claim.stem}.json: the outbox already has a reply for "${claim.stem}"; the input was archived without running (remove the reply before reusing a name)`,
        );
      }
      await archive(path, options.errorDir ?? options.processed, `${claim.stem}.json`);
      return;
    }
    if (claim.tooLong) return finish(claim, nameTooLong(), null);
    const parsed = await readFrame(path);
    if (!parsed.ok) return finish(claim, parsed.reply, null, '', parsed.refused === true);
    const frame = parsed.frame as Record<string, unknown> | null;
    const channel = frame && typeof frame === 'object' && typeof frame.channel === 'string' ? frame.channel : '';
    if (recovered && channelEffect(channel) === 'effect') {
      const id = typeof frame?.id === 'string' || typeof frame?.id === 'number' ? frame.id : null;
      return finish(claim, errorFrame(id, interrupted(channel)), null, channel);
    }
    const scope: RequestScope = { events: [], dropped: 0 };
    const reply = await handleFrame(registry, parsed.frame, (_id, call) => scopes.run(scope, call));
    return finish(claim, reply, scope, channel);
  };

  const guarded = async (stem: string, work: () => Promise<void>): Promise<void> => {
    try {
      await work();
    } catch (error) {
      result.failed++;
      warn(`file-drop: ${stem}.json: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  /**
   * Claims and runs one inbox file; ENOENT on the claim means another adapter took it. A stem too long for its claim
   * name (over MAX_STEM_BYTES, or ENAMETOOLONG from this filesystem) is claimed under its short stem and refused.
   */
  const take = async (name: string, stem: string): Promise<void> => {
    if (options.signal?.aborted) return;
    /** Renames the input to `claim`: false when it is gone (another adapter took it). */
    const claimAs = async (claim: Claim): Promise<boolean> => {
      try {
        await fs.rename(join(inbox, name), join(inbox, claim.name));
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw error;
      }
    };
    let claim = newClaim(stem, stemTooLong(stem));
    let claimed: boolean;
    try {
      claimed = await claimAs(claim);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENAMETOOLONG' || claim.tooLong) throw error;
      claim = newClaim(stem, true);
      claimed = await claimAs(claim);
    }
    if (!claimed) return;
    await options.afterClaim?.(join(inbox, claim.name));
    await process_(claim, false);
  };

  const schedule = (stem: string, work: () => Promise<void>) => {
    if (busy.has(stem)) return;
    busy.add(stem);
    const task = limit(() => guarded(stem, work)).finally(() => {
      busy.delete(stem);
      running.delete(task);
    });
    running.add(task);
  };

  const scan = async (): Promise<void> => {
    let names: string[];
    try {
      // Regular files only: a directory or symlink named *.json is left alone.
      names = (await fs.readdir(inbox, { withFileTypes: true }))
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name)
        .sort();
    } catch (error) {
      warn(`file-drop: cannot read the inbox: ${(error as Error).message}`);
      return;
    }
    for (const name of names) {
      const stem = inputStem(name);
      if (stem !== null && !options.signal?.aborted) schedule(stem, () => take(name, stem));
    }
  };

  /** Finishes stale claims and removes temp files dead adapters left in the outbox and archives. */
  const recover = async (): Promise<void> => {
    for (const dir of new Set([outbox, options.processed, options.errorDir])) {
      if (dir === null) continue;
      for (const name of await fs.readdir(dir)) {
        const owner = tempOwner(name);
        if (owner !== null && (owner === process.pid || !isAlive(owner))) await fs.rm(join(dir, name), { force: true });
      }
    }
    const stale = (await fs.readdir(inbox))
      .sort()
      .map(parseClaim)
      .filter((claim): claim is Claim => claim !== null && isStale(claim));
    for (const claim of stale) {
      result.recovered++;
      // Re-claim under our pid first, so a second adapter starting now does not recover it too.
      const mine: Claim = { ...claim, pid: process.pid, name: claimName(claim.stem, process.pid, claim.tooLong === true) };
      try {
        await fs.rename(join(inbox, claim.name), join(inbox, mine.name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          result.recovered--;
          continue;
        }
        throw error;
      }
      schedule(`.${claim.name}`, () => process_(mine, true));
    }
  };

  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    await recover();
    await scan();
    if (options.mode === 'watch' && !options.signal?.aborted) {
      let pending = false;
      const rescan = () => {
        if (pending || options.signal?.aborted) return;
        pending = true;
        setImmediate(() => {
          pending = false;
          void scan();
        });
      };
      try {
        watcher = watch(inbox, rescan);
        watcher.on('error', () => undefined);
      } catch {
        warn('file-drop: fs.watch is not available on the inbox; rescanning every second only');
      }
      timer = setInterval(rescan, RESCAN_MS);
      await new Promise<void>((resolve) => {
        if (options.signal?.aborted) resolve();
        options.signal?.addEventListener('abort', () => resolve(), { once: true });
      });
    }
    while (running.size > 0) await Promise.allSettled([...running]);
    result.exitCode = result.failed > 0 ? 74 : 0;
    return result;
  } finally {
    watcher?.close();
    if (timer) clearInterval(timer);
    await Promise.allSettled([...running]);
    await registry.dispose();
  }
}

/** Checks and creates the directories (mode 0700): distinct, inbox not the outbox or an archive. Throws usage errors. */
export async function prepareDirs(dirs: FileDropDirs): Promise<FileDropDirs> {
  const named: Array<[string, string | null]> = [
    ['--inbox', dirs.inbox],
    ['--outbox', dirs.outbox],
    ['--processed', dirs.processed],
    ['--error-dir', dirs.errorDir],
  ];
  const real = new Map<string, string>();
  for (const [flag, dir] of named) {
    if (dir === null) continue;
    try {
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      const stat = await fs.stat(dir);
      if (!stat.isDirectory()) throw new Error('not a directory');
      real.set(flag, await fs.realpath(dir));
    } catch (error) {
      throw new MissiveError('validation', 'invalid_directory', `${flag} ${dir}: ${(error as Error).message}`, {
        help: 'Each of --inbox, --outbox, --processed, --error-dir must be a directory missive can create or write.',
      });
    }
  }
  const flags = [...real.keys()];
  for (let i = 0; i < flags.length; i++) {
    for (let j = i + 1; j < flags.length; j++) {
      const [a, b] = [flags[i]!, flags[j]!];
      if (a === '--processed' && b === '--error-dir') continue;
      if (real.get(a) === real.get(b)) {
        throw new MissiveError('validation', 'same_directory', `${a} and ${b} are the same directory (${real.get(a)})`, {
          help: 'The inbox, the outbox and the archive directories must differ (--processed and --error-dir may be the same).',
        });
      }
    }
  }
  return dirs;
}
