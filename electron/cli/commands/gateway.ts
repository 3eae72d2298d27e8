/** `missive gateway run|status|install|start|stop|uninstall`: presentation of the gateway daemon and its system service. */
import { homedir, userInfo } from 'node:os';
import { Option, type Command } from 'commander';
import { gatewayStatus, runGateway } from '../../core/gateway/gateway.js';
import type { LeaseView } from '../../core/gateway/lease.js';
import { parseDuration } from '../../core/config/duration.js';
import { installation } from '../../core/install-root.js';
import { controlService, installService, serviceStatus, uninstallService, type ServiceReport } from '../../core/service/manage.js';
import { parseServiceEnv } from '../../core/service/env-vars.js';
import { execRunner } from '../../core/service/runner.js';
import { serviceSpec, type ServiceSpec } from '../../core/service/spec.js';
import { collect, integer } from '../options.js';
import type { Action, CommandContext } from '../command-context.js';
import { keyValues, table } from '../human.js';
import { untilSignal } from '../signals.js';
import { terminalBlock } from '../terminal-text.js';
import { existsSync } from 'node:fs';

interface ServiceFlags {
  system?: boolean;
  platform?: string;
  bin?: string;
  env?: string[];
}

/** The service of this invocation's profile and state location (see core/service/spec.ts). */
function specOf({ core, deps }: CommandContext, o: ServiceFlags): ServiceSpec {
  const env = deps.env;
  const system = o.system === true;
  return serviceSpec({
    platform: o.platform ?? process.platform,
    system,
    profile: core.config.profile,
    env,
    cwd: deps.cwd,
    paths: core.paths,
    configPath: core.config.source.path,
    configKind: core.config.source.kind,
    nodePath: process.execPath,
    binPath: o.bin ?? `${installation()?.root ?? deps.cwd}/bin/missive.js`,
    extraEnv: parseServiceEnv(o.env ?? []),
    home: env.HOME || homedir(),
    uid: deps.service?.uid ?? process.getuid?.() ?? 0,
    user: system ? env.SUDO_USER || userInfo().username : undefined,
    root: deps.service?.root,
  });
}

const runnerOf = ({ deps }: CommandContext) => deps.service?.runner ?? execRunner;

/**
 * The `running` line of `gateway status`: who holds the profile's lease, or why a lease left behind no longer does;
 * on a PostgreSQL store, the pool's gateways that run.
 */
function runningText(running: boolean, lease: LeaseView | null, pool: LeaseView[] | null): string {
  if (pool) {
    const live = pool.filter((g) => !g.expired);
    if (live.length === 0) return 'no';
    return `yes (${live.length} gateway${live.length === 1 ? '' : 's'} sharing the queue: ${live.map((g) => `pid ${g.pid} on ${g.host} since ${g.started_at}`).join('; ')})`;
  }
  if (!lease) return 'no';
  const who = `pid ${lease.pid} on ${lease.host}`;
  if (running) return `yes (${who}, since ${lease.started_at}; lease until ${lease.expires_at})`;
  if (lease.alive === false) return `no (pid ${lease.pid} is gone; its lease is taken over at the next start)`;
  return `no (the lease of ${who} expired at ${lease.expires_at})`;
}

/** The report in human form: the file (dry run), then each command with its answer. */
function serviceText(r: ServiceReport, verb: string): string {
  const lines = [`${r.dry_run ? `would ${verb}` : verb} ${r.name} (${r.platform}, ${r.scope}): ${r.path}`];
  if (r.dry_run && r.contents) lines.push('', r.contents.trimEnd(), '');
  for (const c of r.commands) {
    lines.push(`${r.dry_run ? 'would run' : 'ran'}: ${c.argv.join(' ')}${c.exit_code === undefined ? '' : ` → exit ${c.exit_code}`}`);
    const said = `${c.stdout ?? ''}${c.stderr ?? ''}`.trim();
    if (said) lines.push(terminalBlock(said));
  }
  return lines.join('\n');
}

const addServiceOptions = (cmd: Command): Command =>
  cmd
    .option('--system', 'the system-wide service (/etc/systemd/system, /Library/LaunchDaemons) instead of the user one')
    .addOption(new Option('--platform <platform>', 'service manager of this platform').choices(['linux', 'darwin']).hideHelp());

export function registerGatewayCommands(program: Command, action: Action): void {
  const gateway = program.command('gateway').description('follow in-flight tasks in the background: SubscribeToTask or GetTask polling, durable jobs');
  gateway
    .command('run')
    .description(
      'run the gateway for this profile until Ctrl-C / SIGTERM (or --timeout); one per profile on SQLite, a pool of any number on a shared PostgreSQL store',
    )
    .option('--once', 'one scan: follow every due job once, then exit')
    .option('--interval <duration>', 'scan and poll interval (default 2s)')
    .option('--concurrency <n>', 'jobs run at once, follow and operator jobs together, 1 to 256 (default 16)', integer('--concurrency', 1, 256))
    .option(
      '--claim-ttl <duration>',
      'how long the profile lease (or pool row) and each job claim last without renewal; a gateway that dies frees them this late (default 30s)',
    )
    .action(
      action(async ({ core, out, flags }, o: { once?: boolean; interval?: string; concurrency?: number; claimTtl?: string }) => {
        const stop = new AbortController();
        if (!o.once) void untilSignal(flags.timeout ? core.timeoutMs : undefined).then(() => stop.abort());
        const result = await runGateway(core, {
          once: o.once,
          intervalMs: o.interval ? parseDuration(o.interval, '--interval') : undefined,
          concurrency: o.concurrency,
          claimTtlMs: o.claimTtl ? parseDuration(o.claimTtl, '--claim-ttl') : undefined,
          signal: stop.signal,
          onRecord: (kind, data) =>
            out.event(
              kind,
              data,
              (d) =>
                `${kind.replace(/_/g, ' ')}${d.job_id ? ` ${String(d.job_id).slice(0, 8)}` : ''}${d.task_id ? ` ${d.task_id}` : ''}${d.state ? ` → ${d.state}` : ''}${d.error ? `: ${typeof d.error === 'string' ? d.error : JSON.stringify(d.error)}` : ''}`,
            ),
        });
        stop.abort();
        out.result(
          'gateway_stopped',
          result,
          (r) =>
            `stopped after ${r.scans} scan(s): ${r.settled} settled, ${r.retried} retried, ${r.failed} failed, ${r.jobs_succeeded} job(s) succeeded, ${r.jobs_failed} job(s) failed, ${r.unfinished} unfinished`,
        );
      }),
    );
  addServiceOptions(gateway.command('status'))
    .description("whether this profile's gateway runs, its jobs, and its installed service (unit file, service manager's answer)")
    .action(
      action(async (ctx, o: ServiceFlags) => {
        const { core, out } = ctx;
        const user = specOf(ctx, o);
        // Without --system, a system-wide service is reported when no user one is installed.
        const spec = o.system || existsSync(user.path) ? user : specOf(ctx, { ...o, system: true });
        const service = await serviceStatus(existsSync(spec.path) ? spec : user, { runner: runnerOf(ctx) });
        return out.result(
          'gateway_status',
          { ...(await gatewayStatus(core)), service },
          (s: Awaited<ReturnType<typeof gatewayStatus>> & { service: typeof service }) =>
            [
              keyValues([
                ['running', runningText(s.running, s.lease, s.gateways)],
                [
                  'jobs',
                  Object.entries(s.jobs)
                    .map(([k, v]) => `${k} ${v}`)
                    .join(', ') || 'none',
                ],
                [
                  'service',
                  s.service.installed
                    ? `${s.service.name} (${s.service.scope}) ${Object.entries(s.service.state ?? {})
                        .map(([k, v]) => `${k}=${v}`)
                        .join(' ')}`.trim()
                    : 'not installed',
                ],
                ['service file', s.service.path],
              ]),
              s.unfinished.length
                ? `\n${table(
                    ['JOB', 'KIND', 'STATE', 'TASK', 'RETRIES', 'NEXT RUN', 'LAST ERROR'],
                    s.unfinished.map((j) => [
                      j.job_id.slice(0, 8),
                      j.kind,
                      j.state,
                      j.task_id ?? j.target_task_id ?? '-',
                      String(j.retry_count),
                      j.next_run_at ?? '-',
                      j.last_error ?? '-',
                    ]),
                  )}`
                : '',
            ].join(''),
        );
      }),
    );
  addServiceOptions(gateway.command('install'))
    .description('install `gateway run` as a systemd user unit (Linux) or launchd agent (macOS), with this profile and state location, and start it')
    .option('--dry-run', 'print the file and the commands; write and run nothing')
    .option('--bin <path>', "the missive to run (default: this installation's bin/missive.js)")
    .option('--env <NAME=VALUE>', 'an environment variable for the service (repeatable; secret-looking names or values are refused)', collect, [])
    .action(
      action(async (ctx, o: ServiceFlags & { dryRun?: boolean }) => {
        const report = await installService(specOf(ctx, o), { dryRun: o.dryRun, runner: runnerOf(ctx) });
        ctx.out.result('gateway_install', report, (r) => serviceText(r, 'install'));
      }),
    );
  for (const [verb, text] of [
    ['start', 'start the installed gateway service'],
    ['stop', 'stop the installed gateway service (SIGTERM: a clean stop)'],
  ] as const) {
    addServiceOptions(gateway.command(verb))
      .description(text)
      .action(
        action(async (ctx, o: ServiceFlags) => {
          const report = await controlService(specOf(ctx, o), verb, { runner: runnerOf(ctx) });
          ctx.out.result(`gateway_${verb}`, report, (r) => serviceText(r, verb));
        }),
      );
  }
  addServiceOptions(gateway.command('uninstall'))
    .description('stop and disable the gateway service and remove its file')
    .option('--dry-run', 'print the commands; remove and run nothing')
    .action(
      action(async (ctx, o: ServiceFlags & { dryRun?: boolean }) => {
        const report = await uninstallService(specOf(ctx, o), { dryRun: o.dryRun, runner: runnerOf(ctx) });
        ctx.out.result('gateway_uninstall', report, (r) => serviceText(r, 'uninstall'));
      }),
    );
}
