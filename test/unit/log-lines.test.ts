/** The log lines of `gateway run` and `webhook run` (electron/cli/log-lines.ts, gateway-log.ts): text and JSON. */
import { describe, expect, it } from 'vitest';
import { createLogger, formatLogLine, logDuration } from '../../electron/cli/log-lines.js';
import { gatewayLogLine } from '../../electron/cli/gateway-log.js';

const time = new Date('2026-12-05T08:01:02.345Z');

describe('log lines', () => {
  it('text: ISO timestamp, level, id, message on one line', () => {
    expect(formatLogLine({ time, level: 'warn', id: 'host/user/gw1', msg: 'store is away' }, 'text')).toBe(
      '2026-12-05T08:01:02.345Z WARN  host/user/gw1 store is away\n',
    );
    expect(formatLogLine({ time, level: 'info', id: 'webhook:42', msg: 'ok' }, 'text')).toBe('2026-12-05T08:01:02.345Z INFO  webhook:42 ok\n');
  });

  it('json: one object per line with the same fields and the record data, which never overrides them', () => {
    const line = formatLogLine({ time, level: 'error', id: 'gw', msg: 'boom', fields: { kind: 'gateway_error', msg: 'not this', job_id: 'j1' } }, 'json');
    expect(line.endsWith('\n')).toBe(true);
    expect(line.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(line)).toEqual({ time: '2026-12-05T08:01:02.345Z', level: 'error', id: 'gw', msg: 'boom', kind: 'gateway_error', job_id: 'j1' });
  });

  it('scrubs known secrets and secret-looking fields, and keeps a text line on one terminal-safe line', () => {
    const secret = 'pg-pass-8f2c91d4';
    const text = formatLogLine({ time, level: 'warn', id: 'gw', msg: `failed for postgres://u:${secret}@h/db\nforged line` }, 'text', [secret]);
    expect(text).not.toContain(secret);
    expect(text.trimEnd().split('\n')).toHaveLength(1);
    const json = JSON.parse(
      formatLogLine({ time, level: 'warn', id: 'gw', msg: 'x', fields: { password: 'hunter2-hunter2', note: secret } }, 'json', [secret]),
    );
    expect(JSON.stringify(json)).not.toContain(secret);
    expect(JSON.stringify(json)).not.toContain('hunter2-hunter2');
  });

  it('writes lines at or above its level only', () => {
    const written: string[] = [];
    const logger = createLogger({ format: 'text', write: (t) => written.push(t), minLevel: 'warn', now: () => time });
    logger.log('info', 'gw', 'routine');
    logger.log('warn', 'gw', 'store is away');
    logger.log('error', 'gw', 'bad');
    expect(written).toEqual(['2026-12-05T08:01:02.345Z WARN  gw store is away\n', '2026-12-05T08:01:02.345Z ERROR gw bad\n']);
  });

  it('tells the store going away and coming back in words an operator reads', () => {
    const away = gatewayLogLine('store_away', {
      code: 'missive::storage::store_unreachable',
      message: 'the PostgreSQL store could not be used for jobs.claimDue (ECONNREFUSED)',
      retry_max_ms: 16_000,
    });
    expect(away).toEqual({
      level: 'warn',
      msg: 'store is away: the PostgreSQL store could not be used for jobs.claimDue (ECONNREFUSED) (missive::storage::store_unreachable); no scans until it is back, trying it again with backoff (at most every 16.0 s)',
    });
    expect(gatewayLogLine('store_back', { away_ms: 12_345, released_jobs: 2, running_jobs: 1 })).toEqual({
      level: 'info',
      msg: 'store is back after 12.3 s: 2 job(s) made due again, 1 still running',
    });
    expect(gatewayLogLine('job_settled', { job_id: '1a2b3c4d-0000', task_id: 't-1', state: 'completed' })).toEqual({
      level: 'info',
      msg: 'job settled 1a2b3c4d t-1 → completed',
    });
    expect(logDuration(850)).toBe('850 ms');
    expect(logDuration(270_000)).toBe('4.5 min');
  });
});
