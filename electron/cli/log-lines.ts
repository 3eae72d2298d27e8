/**
 * The log of a long-running command (`gateway run`, `webhook run`): one line per thing worth telling the operator, on
 * stderr, so stdout keeps only the command's results (and the `--ndjson` event stream). Each line has an ISO
 * timestamp, a level, the id of the process that speaks (the gateway's holder id, the receiver's) and a message:
 *
 *   2026-12-05T08:01:02.345Z WARN  gateway:4242:1a2b3c4d store is away: … ; trying again with backoff (at most every 16 s)
 *
 * `--log-format json` prints one JSON object per line with the same fields (`time`, `level`, `id`, `msg`) and the
 * record's own data. Both are redacted (the run's known secrets, secret-looking keys) and text lines are made
 * terminal-safe, like every other line missive prints. Written by hand rather than with a logging library: two
 * fixed formats, synchronous writes to the CLI's stderr, and the CLI's own redaction are all it takes.
 */
import { Option } from 'commander';
import { redactText, redactValue } from '../core/security/redact.js';
import type { CommandContext } from './command-context.js';
import { knownSecrets } from './core-options.js';
import { terminalLine } from './terminal-text.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LogLine {
  time: Date;
  level: LogLevel;
  /** Who speaks: the gateway's id, the receiver's. */
  id: string;
  msg: string;
  /** The record's own data (JSON format only; never overrides time, level, id or msg). */
  fields?: Record<string, unknown>;
}

/** One line, newline included: text (`<time> <LEVEL> <id> <msg>`) or one JSON object. */
export function formatLogLine(line: LogLine, format: LogFormat, secrets: readonly string[] = []): string {
  const msg = redactText(line.msg, secrets);
  if (format === 'json') {
    const fields = line.fields ? redactValue(line.fields, secrets) : {};
    return `${JSON.stringify({ ...fields, time: line.time.toISOString(), level: line.level, id: line.id, msg })}\n`;
  }
  return `${line.time.toISOString()} ${line.level.toUpperCase().padEnd(5)} ${terminalLine(line.id)} ${terminalLine(msg)}\n`;
}

export interface Logger {
  log(level: LogLevel, id: string, msg: string, fields?: Record<string, unknown>): void;
}

export interface LoggerOptions {
  format: LogFormat;
  write: (text: string) => void;
  /** Lines below this level are not written (default info; `--quiet`: warn). */
  minLevel?: LogLevel;
  /** The run's known secrets, scrubbed from every line. */
  secrets?: () => readonly string[];
  now?: () => Date;
}

export function createLogger(options: LoggerOptions): Logger {
  const min = LOG_LEVELS.indexOf(options.minLevel ?? 'info');
  const now = options.now ?? (() => new Date());
  return {
    log(level, id, msg, fields) {
      if (LOG_LEVELS.indexOf(level) < min) return;
      options.write(formatLogLine({ time: now(), level, id, msg, fields }, options.format, options.secrets?.() ?? []));
    },
  };
}

/** A duration for a log line: `850 ms`, `12.3 s`, `4.5 min`. */
export function logDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

/** `--log-format text|json` for a long-running command. */
export const logFormatOption = (): Option =>
  new Option('--log-format <format>', 'log lines on stderr: text (time, level, id, message) or json (one object per line)')
    .choices(LOG_FORMATS)
    .default('text');

/** The log of a command run: stderr, its known secrets scrubbed; `--quiet` keeps warnings and errors only. */
export function commandLogger({ core, flags, deps }: Pick<CommandContext, 'core' | 'flags' | 'deps'>, format: LogFormat = 'text'): Logger {
  return createLogger({ format, write: deps.io.stderr, minLevel: flags.quiet ? 'warn' : 'info', secrets: () => knownSecrets(core, flags) });
}
