/**
 * What `gateway run` logs for each record of the gateway (core/gateway/gateway.ts's onRecord): a level and a message
 * an operator reads at a glance. The store going away and coming back are one line each per outage.
 */
import type { LogLevel } from './log-lines.js';
import { logDuration } from './log-lines.js';

type Data = Record<string, unknown>;

const short = (id: unknown) => (typeof id === 'string' ? id.slice(0, 8) : '');
const errorText = (error: unknown): string => {
  if (typeof error === 'string') return error;
  const report = error as { message?: unknown; code?: unknown } | null | undefined;
  if (report && typeof report.message === 'string') return `${report.message}${typeof report.code === 'string' ? ` (${report.code})` : ''}`;
  return JSON.stringify(error);
};

/** The generic line of a job record: `job settled 1a2b3c4d task-1 → completed: why`. */
const jobText = (kind: string, d: Data) =>
  `${kind.replace(/_/g, ' ')}${d.job_id ? ` ${short(d.job_id)}` : ''}${d.task_id ? ` ${String(d.task_id)}` : ''}${d.state ? ` → ${String(d.state)}` : ''}${d.error ? `: ${errorText(d.error)}` : ''}`;

const LEVELS: Record<string, LogLevel> = {
  store_away: 'warn',
  store_back: 'info',
  gateway_error: 'error',
  gateway_lease_lost: 'error',
  job_failed: 'warn',
  job_retrying: 'warn',
};

export function gatewayLogLine(kind: string, d: Data): { level: LogLevel; msg: string } {
  const level = LEVELS[kind] ?? 'info';
  switch (kind) {
    case 'gateway_started':
      return {
        level,
        msg: `gateway started: pid ${String(d.pid)} on ${String(d.host)}, ${String(d.store)} store${d.reclaimed_jobs ? `, ${String(d.reclaimed_jobs)} job(s) reclaimed` : ''}`,
      };
    case 'store_away':
      return {
        level,
        msg: `store is away: ${errorText({ message: d.message, code: d.code })}; no scans until it is back, trying it again with backoff (at most every ${logDuration(Number(d.retry_max_ms))})`,
      };
    case 'store_back':
      return {
        level,
        msg: `store is back after ${logDuration(Number(d.away_ms))}: ${String(d.released_jobs ?? 0)} job(s) made due again, ${String(d.running_jobs ?? 0)} still running`,
      };
    case 'gateway_lease_lost':
      return { level, msg: 'another gateway took over this profile: this one stops' };
    default:
      return { level, msg: jobText(kind, d) };
  }
}
