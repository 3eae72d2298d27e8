/** `missive gateway run|status|install|start|stop|uninstall`: presentation of the gateway daemon and its system service. */
import { homedir, userInfo } from 'node:os';
import { Option, type Command } from 'commander';
import { gatewayStatus, runGateway } from '../../core/gateway/gateway.js';
import { parseGatewayId } from '../../core/gateway/identity.js';
import type { LeaseView } from '../../core/gateway/lease.js';
import { parseDuration } from '../../core/config/duration.js';
import { installation } from '../../core/install-root.js';
import { controlService, installService, serviceStatus, uninstallService, type ServiceReport } from '../../core/service/manage.js';
import { parseServiceEnv } from '../../core/service/env-vars.js';
import { execRunner } from '../../core/service/runner.js';
import { serviceSpec, type ServiceSpec } from '../../core/service/spec.js';
import { planStoreAccess, STORE_PASSWORD_CREDENTIAL, STORE_PASSWORD_FILE_ENV, type PasswordPlan } from '../../core/service/store-access.js';
import { installedStore, storeText, storeView, type InstalledStore, type StoreView } from '../../core/service/unit-store.js';
import { collect, integer } from '../options.js';
import { gatewayLogLine } from '../gateway-log.js';
import { commandLogger, logFormatOption, type LogFormat } from '../log-lines.js';
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
    return `yes (${live.length} gateway${live.length === 1 ? '' : 's'} sharing the queue: ${live.map((g) => `${g.id} (pid ${g.pid} on ${g.host}) since ${g.started_at}`).join('; ')})`;
  }
  if (!lease) return 'no';
  const who = `${lease.id}, pid ${lease.pid} on ${lease.host}`;
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

/** The `service store` line of `gateway status`: the installed service's store, and whether it is this shell's. */
const serviceStoreText = (s: InstalledStore): string =>
  s.error || !s.kind
    ? `unknown: ${s.error ?? 'the service file names no store'}`
    : `${storeText(s as StoreView)}${s.password_file ? `, password from ${s.password_file}` : ''}${s.same_as_shell ? ', as this shell' : " — NOT this shell's store: reinstall from the shell whose store it should use (`missive gateway install`)"}`;

/** The store line of `gateway install`: which store the service uses and how it gets the password (never the password). */
function installStoreText(store: StoreView & { password_source?: PasswordPlan }, dryRun: boolean, writes: boolean): string {
  const line = `store: ${storeText(store)}`;
  const p = store.password_source;
  if (!p) return line;
  const how: Record<PasswordPlan['via'], string> = {
    credential: `systemd loads it with LoadCredential=${STORE_PASSWORD_CREDENTIAL}:${p.file} (the service reads %d/${STORE_PASSWORD_CREDENTIAL})`,
    file: `the service reads ${p.file} (${STORE_PASSWORD_FILE_ENV})`,
    config: 'the service reads it there itself',
    keyring: 'the service reads the OS keyring',
    pgpass: 'the service reads that file itself (~/.pgpass, or PGPASSFILE carried into the service file)',
    none: 'no password found in this shell: the server must not ask for one (trust, certificate), or add one to ~/.pgpass',
  };
  const wrote = writes ? `, ${dryRun ? 'to be written' : 'written'} to ${p.file} (0600)` : '';
  return `${line}\npassword: ${p.via === 'none' ? how.none : `from ${p.from}${wrote}; ${how[p.via]}`}`;
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
    .option(
      '--concurrency <n>',
      'jobs run at once, follow and operator jobs together, 1 to 256 (default [gateway] job_concurrency, else 16)',
      integer('--concurrency', 1, 256),
    )
    .option(
      '--claim-ttl <duration>',
      'how long the profile lease (or pool row) and each job claim last without renewal; a gateway that dies frees them this late (default 30s)',
    )
    .option(
      '--id <name>',
      "this gateway's id in job claims and the journal: 1 to 64 of A-Z a-z 0-9 . _ - (default <host>/<user>/gw<N>, the lowest N no running gateway holds)",
    )
    .addOption(logFormatOption())
    .action(
      action(
        async (
          { core, out, flags, deps },
          o: { once?: boolean; interval?: string; concurrency?: number; claimTtl?: string; id?: string; logFormat?: LogFormat },
        ) => {
          // The log goes to stderr (one line per record, the store's outages one line each); stdout keeps the summary,
          // and with --ndjson the records as events.
          const logger = commandLogger({ core, flags, deps }, o.logFormat);
          const stop = new AbortController();
          if (!o.once) void untilSignal(flags.timeout ? core.timeoutMs : undefined).then(() => stop.abort());
          const result = await runGateway(core, {
            id: o.id === undefined ? undefined : parseGatewayId(o.id),
            once: o.once,
            intervalMs: o.interval ? parseDuration(o.interval, '--interval') : undefined,
            concurrency: o.concurrency ?? core.config.gateway.jobConcurrency,
            claimTtlMs: o.claimTtl ? parseDuration(o.claimTtl, '--claim-ttl') : undefined,
            signal: stop.signal,
            onRecord: (kind, data, { gateway }) => {
              const line = gatewayLogLine(kind, data);
              logger.log(line.level, gateway, line.msg, { event: kind, ...data });
              if (out.mode === 'ndjson') out.event(kind, data, () => line.msg);
            },
          });
          stop.abort();
          out.result(
            'gateway_stopped',
            result,
            (r) =>
              `stopped after ${r.scans} scan(s): ${r.settled} settled, ${r.retried} retried, ${r.failed} failed, ${r.jobs_succeeded} job(s) succeeded, ${r.jobs_failed} job(s) failed, ${r.unfinished} unfinished`,
          );
        },
      ),
    );
  addServiceOptions(gateway.command('status'))
    .description("whether this profile's gateway runs, its jobs, and its installed service (unit file, service manager's answer)")
    .action(
      action(async (ctx, o: ServiceFlags) => {
        const { core, out } = ctx;
        const user = specOf(ctx, o);
        // Without --system, a system-wide service is reported when no user one is installed.
        const spec = o.system || existsSync(user.path) ? user : specOf(ctx, { ...o, system: true });
        const status = await serviceStatus(existsSync(spec.path) ? spec : user, { runner: runnerOf(ctx) });
        // Which store this shell and the installed service use (read from its file; never a password).
        const store = storeView(core.storeSelection, core.paths.database);
        const serviceStore = status.installed ? installedStore(status.path, spec.platform, ctx.deps.env.HOME || homedir(), store) : null;
        const service = { ...status, ...(serviceStore ? { store: serviceStore } : {}) };
        return out.result(
          'gateway_status',
          { ...(await gatewayStatus(core)), store, service },
          (s: Awaited<ReturnType<typeof gatewayStatus>> & { store: StoreView; service: typeof service }) =>
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
                ['store', storeText(s.store)],
                ...(s.service.store ? [['service store', serviceStoreText(s.service.store)] as [string, string]] : []),
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
    .option(
      '--store-password-file <file>',
      "a shared store's password file (0600) the service reads (systemd: LoadCredential); default: the password this shell uses, written to a 0600 file in the profile's state folder",
    )
    .action(
      action(async (ctx, o: ServiceFlags & { dryRun?: boolean; storePasswordFile?: string }) => {
        const { core, deps, out } = ctx;
        const spec = specOf(ctx, o);
        // The shell's store, reached by the service without a password in its file; another store is refused (78).
        const access = planStoreAccess({
          platform: spec.platform,
          shell: core.storeSelection,
          env: deps.env,
          cwd: deps.cwd,
          config: core.config,
          serviceEnv: spec.env,
          home: deps.env.HOME || homedir(),
          stateDir: core.paths.state,
          sqliteFile: core.paths.database,
          passwordFile: o.storePasswordFile,
        });
        for (const warning of access.warnings) out.warning(warning);
        if (!o.dryRun) access.apply();
        const report = await installService(
          { ...spec, env: [...spec.env, ...access.env], credentials: access.credentials },
          { dryRun: o.dryRun, runner: runnerOf(ctx) },
        );
        // `password_source`, not `password`: output redacts a key named like a secret (it holds none: where the password is read).
        const store = {
          ...access.store,
          ...(access.password ? { password_source: { ...access.password, written: access.password.written === true && !o.dryRun } } : {}),
        };
        out.result(
          'gateway_install',
          { ...report, store },
          (r) => `${serviceText(r, 'install')}\n${installStoreText(r.store, r.dry_run, access.password?.written === true)}`,
        );
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
