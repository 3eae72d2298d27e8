/** `missive push …` and `missive webhook run`: presentation of push config CRUD and the callback receiver. */
import { Option, type Command, type OptionValues } from 'commander';
import { createPushConfig, deletePushConfig, getPushConfig, listPushConfigs, type PushCallOptions } from '../../core/push/service.js';
import { BINDINGS } from '../../core/config/schema.js';
import { callbackStore } from '../../core/webhook/callback-store.js';
import {
  createReceiver,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_MAX_BODY,
  isLoopbackHost,
  STORE_RETRY_AFTER_S,
  type Arrival,
} from '../../core/webhook/receiver.js';
import { backoffMs } from '../../core/jobs/backoff.js';
import { commandLogger, logFormatOption, type LogFormat } from '../log-lines.js';
import { parseDuration } from '../../core/config/duration.js';
import { receiverSettings } from '../../core/webhook/settings.js';
import type { Action } from '../command-context.js';
import { integer } from '../options.js';
import { untilSignal } from '../signals.js';
import { keyValues, table } from '../human.js';
import { terminalLine } from '../terminal-text.js';

/** The largest `--max-body-bytes` (100 MiB). */
const MAX_BODY_LIMIT = 100 * 1024 * 1024;

/** A push config's authentication, as an agent answers it (already redacted). */
type PushAuth = { scheme?: unknown; credentials?: unknown } | undefined;

const configText = (d: { agent: string; task_id: string; config: Record<string, unknown> }) => {
  const auth = d.config.authentication as PushAuth;
  return keyValues([
    ['agent', d.agent],
    ['task', d.task_id],
    ['config', d.config.id],
    ['url', d.config.url],
    ['token', d.config.token ?? null],
    ['auth', auth ? `${auth.scheme} ${auth.credentials}` : null],
  ]);
};

/** `--binding` and `--force`, on every push command. */
const callOptions = (cmd: Command): Command =>
  cmd
    .addOption(new Option('--binding <binding>', 'require this binding').choices([...BINDINGS]))
    .option('--force', 'call the agent even when its Agent Card does not advertise push notifications');

const callOf = (o: OptionValues): PushCallOptions => ({ binding: o.binding, force: o.force });

export function registerPushCommands(program: Command, action: Action): void {
  const push = program.command('push').description('A2A push notification configs of a task (credentials are sent to the agent and stored redacted)');
  callOptions(
    push
      .command('create <agent> <task-id>')
      .description('register a callback URL for a task (CreateTaskPushNotificationConfig)')
      .requiredOption('--url <url>', 'callback URL, e.g. the one `missive webhook run` prints')
      .option('--config-id <id>', 'config id (default: a new UUID)')
      .option('--token <token>', 'token the agent sends back (X-A2A-Notification-Token); prefer --token-env')
      .option('--token-env <env>', 'env var holding that token')
      .option('--auth-scheme <scheme>', 'authentication scheme for callbacks, e.g. Bearer')
      .option('--auth-credentials-env <env>', 'env var holding the credentials for --auth-scheme'),
  ).action(
    action(async ({ core, out }, agent: string, taskId: string, o: OptionValues) =>
      out.result(
        'push_create',
        await createPushConfig(core, {
          agent,
          taskId,
          url: o.url,
          configId: o.configId,
          token: o.token,
          tokenEnv: o.tokenEnv,
          authScheme: o.authScheme,
          authCredentialsEnv: o.authCredentialsEnv,
          ...callOf(o),
        }),
        configText,
      ),
    ),
  );
  callOptions(push.command('get <agent> <task-id> <config-id>').description('fetch one config (GetTaskPushNotificationConfig)')).action(
    action(async ({ core, out }, agent: string, taskId: string, id: string, o: OptionValues) =>
      out.result('push_get', await getPushConfig(core, agent, taskId, id, callOf(o)), configText),
    ),
  );
  callOptions(
    push
      .command('list <agent> <task-id>')
      .description("list a task's configs (ListTaskPushNotificationConfigs)")
      .option('--page-size <n>', 'configs per page, 1 to 1000', integer('--page-size', 1, 1000))
      .option('--page-token <token>', 'continue from a previous page'),
  ).action(
    action(async ({ core, out }, agent: string, taskId: string, o: { pageSize?: number; pageToken?: string } & OptionValues) =>
      out.result(
        'push_list',
        await listPushConfigs(core, agent, taskId, { pageSize: o.pageSize, pageToken: o.pageToken, ...callOf(o) }),
        (d: Awaited<ReturnType<typeof listPushConfigs>>) =>
          d.configs.length
            ? table(
                ['CONFIG', 'URL', 'AUTH'],
                d.configs.map((c) => [String(c.id ?? ''), String(c.url ?? ''), String((c.authentication as PushAuth)?.scheme ?? (c.token ? 'token' : '-'))]),
              )
            : `No push configs for task ${d.task_id}.`,
      ),
    ),
  );
  callOptions(
    push
      .command('delete <agent> <task-id> <config-id>')
      .description('remove a config (DeleteTaskPushNotificationConfig); the local row is kept, marked deleted'),
  ).action(
    action(async ({ core, out }, agent: string, taskId: string, id: string, o: OptionValues) =>
      out.result('push_delete', await deletePushConfig(core, agent, taskId, id, callOf(o)), (d) => `deleted ${d.config_id}`),
    ),
  );

  program
    .command('webhook')
    .description('receive A2A push callbacks')
    .command('run')
    .description('listen for push callbacks and journal them until Ctrl-C / SIGTERM (or --timeout)')
    .option('--host <ip>', 'address to bind (default [webhook] host, else 127.0.0.1)')
    .option('--port <n>', 'port, 0 to 65535 (default [webhook] port, else 0: any free port)', integer('--port', 0, 65_535))
    .option('--path <path>', 'callback path (default [webhook] path, else /a2a/push)')
    .option('--auth-token-env <env>', 'require this token on every callback (default [webhook] auth_token_env)')
    .option('--auth-header <name>', 'header carrying it (default X-A2A-Notification-Token, or Authorization with --auth-scheme)')
    .option('--auth-scheme <scheme>', 'expect "<scheme> <token>", e.g. Bearer')
    .option(
      '--max-body-bytes <n>',
      `largest accepted body, 1 to ${MAX_BODY_LIMIT} (default ${DEFAULT_MAX_BODY})`,
      integer('--max-body-bytes', 1, MAX_BODY_LIMIT),
    )
    .option('--headers-timeout <duration>', `408 and close when the request headers take longer (default ${DEFAULT_HEADERS_TIMEOUT_MS / 1000}s)`)
    .option('--body-timeout <duration>', `408 and close when the body takes longer, once the headers are in (default ${DEFAULT_BODY_TIMEOUT_MS / 1000}s)`)
    .option('--allow-remote', 'allow a non-loopback --host (put TLS in front of it)')
    .addOption(logFormatOption())
    .action(
      action(async ({ core, out, deps, flags }, o: OptionValues) => {
        // The log goes to stderr (each callback, the store's outages one line each); stdout keeps where it listens,
        // the summary, and with --ndjson every arrival as an event.
        const logger = commandLogger({ core, flags, deps }, o.logFormat as LogFormat);
        const logId = `webhook:${process.pid}`;
        const settings = receiverSettings(core.config.webhook, core.env, o);
        const { auth } = settings;
        const receiver = createReceiver(
          callbackStore(() => core.storage()),
          {
            ...settings,
            headersTimeoutMs: o.headersTimeout === undefined ? undefined : parseDuration(o.headersTimeout, '--headers-timeout'),
            bodyTimeoutMs: o.bodyTimeout === undefined ? undefined : parseDuration(o.bodyTimeout, '--body-timeout'),
            allowRemote: o.allowRemote,
            warn: (message) => core.warn(message),
            log: (level, message, fields) => logger.log(level, logId, message, fields),
            storeRetryDelayMs: (failures) => backoffMs(failures, { baseMs: 500, capMs: STORE_RETRY_AFTER_S * 1000 }),
          },
        );
        if (!isLoopbackHost(settings.host))
          deps.io.stderr(`missive: warning: listening on ${terminalLine(settings.host)}; callbacks are plain HTTP, put TLS in front of this port\n`);
        const address = await receiver.start();
        out.event(
          'webhook_listening',
          { ...address, auth: auth ? auth.header : null },
          (d) => `listening on ${d.url}${d.auth ? ` (auth: ${d.auth})` : ' (no auth)'}; Ctrl-C to stop`,
        );
        receiver.onArrival((a: Arrival) => {
          if (out.mode === 'ndjson') return out.event('webhook_arrival', a, () => '');
          logger.log(
            a.status === 202 ? 'info' : 'warn',
            logId,
            `${a.status} ${a.event_type}${a.task_id ? ` task ${a.task_id}` : ''}${a.reason ? `: ${a.reason}` : ''}`,
            {
              event: 'webhook_arrival',
              ...a,
            },
          );
        });
        await untilSignal(flags.timeout ? core.timeoutMs : undefined);
        await receiver.stop();
        out.result('webhook_stopped', receiver.stats(), (s) => `stopped: ${s.accepted} accepted, ${s.rejected} rejected`);
      }),
    );
}
