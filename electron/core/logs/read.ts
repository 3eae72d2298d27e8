/**
 * `missive logs`: the newest log records of a profile, from its log files (`profile-files`: `<state>/logs/`, e.g. the
 * gateway service's log) or from its event journal (`event-journal`: the newest events as log records). Every
 * record's text is redacted (`redactLogLine`: `key=value` and `"key":"value"` secrets, `Bearer …`); JSON lines also
 * give their timestamp and level.
 */
import { MissiveError, usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { listJournal } from '../events/journal.js';
import { redactLogLine } from '../security/redact.js';
import { logFiles, type LogFile } from './log-files.js';
import { tailLines } from './tail-lines.js';

export const LOG_SOURCES = ['profile-files', 'event-journal'] as const;
export type LogSource = (typeof LOG_SOURCES)[number];

export interface LogRecord {
  source: LogSource;
  /** profile-files: the file's name and, when known, the line number. */
  file?: string;
  line?: number;
  /** event-journal: the event's sequence and type. */
  sequence?: number;
  type?: string;
  timestamp?: string;
  level?: string;
  /** The redacted line (files) or a one-line summary of the event (journal). */
  message: string;
}

export interface LogsResult {
  source: LogSource;
  /** profile-files: the directory read and its files, oldest change first. */
  directory?: string;
  files?: Array<Omit<LogFile, 'path'>>;
  records: LogRecord[];
  count: number;
  /** Why there is nothing to show, when there is nothing. */
  note?: string;
}

const TIMESTAMP_KEYS = ['timestamp', 'time', 'ts', '@timestamp', 'date'];
const LEVEL_KEYS = ['level', 'severity', 'lvl', 'log.level'];
const MESSAGE_PREVIEW_CHARS = 400;

/** The timestamp and level of a JSON log line (already redacted), when it is one. */
function jsonFields(text: string): Pick<LogRecord, 'timestamp' | 'level'> {
  if (!text.startsWith('{')) return {};
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    const pick = (keys: string[]) => keys.map((k) => value[k]).find((v) => typeof v === 'string' || typeof v === 'number');
    const timestamp = pick(TIMESTAMP_KEYS);
    const level = pick(LEVEL_KEYS);
    return { timestamp: timestamp === undefined ? undefined : String(timestamp), level: level === undefined ? undefined : String(level) };
  } catch {
    return {};
  }
}

/** The newest `limit` lines over all log files: the newest file's last lines, then older files' until the limit. */
function fromFiles(core: Core, limit: number): LogsResult {
  const directory = core.paths.logs;
  const files = logFiles(directory);
  const records: LogRecord[] = [];
  for (const file of [...files].reverse()) {
    if (records.length >= limit) break;
    let lines;
    try {
      lines = tailLines(file.path, limit - records.length);
    } catch (error) {
      throw new MissiveError('io', 'log_read_failed', `cannot read ${file.path}: ${(error as Error).message}`, { cause: error });
    }
    const fileRecords = lines.map((l): LogRecord => {
      const message = redactLogLine(l.text);
      return { source: 'profile-files', file: file.name, line: l.number, ...jsonFields(message), message };
    });
    records.unshift(...fileRecords);
  }
  const note = files.length === 0 ? `no log files in ${directory}` : records.length === 0 ? `the log files in ${directory} are empty` : undefined;
  return { source: 'profile-files', directory, files: files.map(({ path: _p, ...f }) => f), records, count: records.length, note };
}

const levelOfEvent = (type: string) => (/fail|error|reject|denied/.test(type) ? 'error' : /retry|warn|stale|cancel/.test(type) ? 'warn' : 'info');

/** The newest `limit` journal events, oldest first, each as one log line: type, agent, ids, then the payload in short. */
async function fromJournal(core: Core, limit: number): Promise<LogsResult> {
  const records = (await listJournal(core, { limit })).map((e): LogRecord => {
    const ids = [e.agent && `agent=${e.agent}`, e.context_id && `context=${e.context_id}`, e.task_id && `task=${e.task_id}`].filter(Boolean);
    const payload = e.payload === null || e.payload === undefined ? '' : JSON.stringify(e.payload);
    const preview = payload.length > MESSAGE_PREVIEW_CHARS ? `${payload.slice(0, MESSAGE_PREVIEW_CHARS)}…` : payload;
    // An event changed outside missive that cannot be read (events/journal.ts) says so instead of a payload.
    const message = redactLogLine([e.type, ...ids, 'corrupt' in e ? '[corrupt]' : preview].filter(Boolean).join(' '));
    return { source: 'event-journal', sequence: e.sequence, type: e.type, timestamp: e.timestamp, level: levelOfEvent(e.type), message };
  });
  return { source: 'event-journal', records, count: records.length, note: records.length === 0 ? 'the event journal is empty' : undefined };
}

/** The newest `limit` records of `source`, oldest first. */
export async function readLogs(core: Core, options: { source?: string; limit?: number } = {}): Promise<LogsResult> {
  const source = (options.source ?? 'profile-files') as LogSource;
  if (!LOG_SOURCES.includes(source))
    throw usageError('invalid_log_source', `--source "${options.source}" is not a log source`, `Use one of: ${LOG_SOURCES.join(', ')}.`);
  const limit = options.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1) throw usageError('invalid_limit', '--limit must be a positive integer');
  return source === 'event-journal' ? fromJournal(core, limit) : fromFiles(core, limit);
}
