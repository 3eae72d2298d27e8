/** `missive gateway run|status`: presentation of the gateway daemon. */
import type { Command } from 'commander';
import { gatewayStatus, runGateway } from '../../core/gateway/gateway.js';
import { parseDuration } from '../../core/config/duration.js';
import type { Action } from '../command-context.js';
import { keyValues, table } from '../human.js';
import { untilSignal } from '../signals.js';

export function registerGatewayCommands(program: Command, action: Action): void {
  const gateway = program.command('gateway').description('follow in-flight tasks in the background: SubscribeToTask or GetTask polling, durable jobs');
  gateway
    .command('run')
    .description('run the gateway for this profile until Ctrl-C / SIGTERM (or --timeout); one per profile')
    .option('--once', 'one scan: follow every due job once, then exit')
    .option('--interval <duration>', 'scan and poll interval (default 2s)')
    .action(
      action(async ({ core, out, flags }, o: { once?: boolean; interval?: string }) => {
        const stop = new AbortController();
        if (!o.once) void untilSignal(flags.timeout ? core.timeoutMs : undefined).then(() => stop.abort());
        const result = await runGateway(core, {
          once: o.once,
          intervalMs: o.interval ? parseDuration(o.interval, '--interval') : undefined,
          signal: stop.signal,
          onRecord: (kind, data) =>
            out.event(kind, data, (d) => `${kind.replace(/_/g, ' ')}${d.task_id ? ` ${d.task_id}` : ''}${d.state ? ` → ${d.state}` : ''}${d.error ? `: ${typeof d.error === 'string' ? d.error : JSON.stringify(d.error)}` : ''}`),
        });
        stop.abort();
        out.result('gateway_stopped', result, (r) => `stopped after ${r.scans} scan(s): ${r.settled} settled, ${r.retried} retried, ${r.failed} failed, ${r.unfinished} unfinished`);
      }),
    );
  gateway
    .command('status')
    .description("whether this profile's gateway runs, and its jobs")
    .action(
      action(async ({ core, out }) =>
        out.result('gateway_status', gatewayStatus(core), (s: ReturnType<typeof gatewayStatus>) =>
          [
            keyValues([
              ['running', s.running ? `yes (pid ${s.lock?.pid}, since ${s.lock?.started_at})` : s.lock ? `no (stale lock of pid ${s.lock.pid})` : 'no'],
              ['jobs', Object.entries(s.jobs).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'],
            ]),
            s.unfinished.length ? `\n${table(['JOB', 'KIND', 'STATE', 'TASK', 'RETRIES', 'NEXT RUN', 'LAST ERROR'], s.unfinished.map((j) => [j.job_id.slice(0, 8), j.kind, j.state, j.task_id, String(j.retry_count), j.next_run_at ?? '-', j.last_error ?? '-']))}` : '',
          ].join(''),
        ),
      ),
    );
}
