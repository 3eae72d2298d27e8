/**
 * `push create|get|list|delete`: A2A push notification config CRUD over both bindings. Credentials (token, the
 * authentication credentials read from an env var) go to the agent and nowhere else: rows, events and output hold
 * them redacted.
 */
import { randomUUID } from 'node:crypto';
import { TaskPushNotificationConfig } from '@a2a-js/sdk';
import { authError, usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { a2aClient, type A2AClient } from '../a2a/client.js';
import type { CreatePushConfigParams } from '../a2a/operations.js';
import { connect, type Connection } from '../agents/connection.js';
import type { CardResult } from '../agents/discovery.js';
import { capabilityView } from '../a2a/capabilities.js';
import type { Binding } from '../config/schema.js';
import { validateBaseUrl } from '../validation/url.js';
import { REDACTED, redactValue } from '../security/redact.js';
import { call, journal } from '../store/steps.js';

/** How every push call reaches the agent: `--binding`, and `--force` to call an agent whose card lacks push. */
export interface PushCallOptions {
  binding?: Binding;
  force?: boolean;
}

export interface PushCreateInput extends PushCallOptions {
  agent: string;
  taskId: string;
  url: string;
  configId?: string;
  /** Literal token (X-A2A-Notification-Token); prefer tokenEnv. */
  token?: string;
  tokenEnv?: string;
  authScheme?: string;
  authCredentialsEnv?: string;
}

/** The config as stored and shown: token and credentials replaced. */
export function redactPushConfig(config: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...config };
  if (copy.token) copy.token = REDACTED;
  const authentication = copy.authentication as Record<string, unknown> | undefined;
  if (authentication?.credentials) copy.authentication = { ...authentication, credentials: REDACTED };
  return copy;
}

function envSecret(core: Core, name: string | undefined, flag: string): string | undefined {
  if (!name) return undefined;
  const value = core.env[name];
  if (!value) throw authError('env_missing', `${flag} ${name} is not set in the environment`, `export ${name}=<secret> and try again.`);
  return value;
}

/** Refuses, before any request, an agent whose card does not advertise push notifications (unless `--force`). */
const requirePush = (force: boolean | undefined) => (card: CardResult) => {
  if (force || capabilityView(card.card).push_notifications) return;
  throw usageError(
    'push_not_supported',
    `agent "${card.agent.alias}" does not advertise capabilities.pushNotifications in its Agent Card; nothing was sent`,
    `Refresh its card if the agent has changed (missive agent refresh ${card.agent.alias}), or pass --force to try anyway.`,
  );
};

/** The agent's connection for a push call, and a client that also redacts the secrets this request carries. */
async function pushClient(
  core: Core,
  agent: string,
  options: PushCallOptions,
  extraSecrets: string[] = [],
  bodySecrets: string[] = [],
): Promise<{ conn: Connection; client: A2AClient }> {
  const conn = await connect(core, agent, { bodySecrets, binding: options.binding, checkCard: requirePush(options.force) });
  const client = extraSecrets.length ? a2aClient({ ...conn.call, secrets: [...(conn.call.secrets ?? []), ...extraSecrets] }) : conn.client;
  return { conn, client };
}

export async function createPushConfig(core: Core, input: PushCreateInput) {
  validateBaseUrl(input.url, 'callback URL');
  if (input.authScheme && !input.authCredentialsEnv) throw usageError('credentials_required', '--auth-scheme needs --auth-credentials-env ENV');
  if (input.authCredentialsEnv && !input.authScheme) throw usageError('scheme_required', '--auth-credentials-env needs --auth-scheme (e.g. Bearer)');
  const token = input.token ?? envSecret(core, input.tokenEnv, '--token-env');
  const credentials = envSecret(core, input.authCredentialsEnv, '--auth-credentials-env');
  const secrets = [token, credentials].filter((s): s is string => !!s);
  const config = TaskPushNotificationConfig.toJSON(
    TaskPushNotificationConfig.fromJSON({
      id: input.configId ?? randomUUID(),
      taskId: input.taskId,
      url: input.url,
      ...(token ? { token } : {}),
      ...(credentials ? { authentication: { scheme: input.authScheme, credentials } } : {}),
    }),
  ) as CreatePushConfigParams;
  const bodySecrets = [
    ...(token ? [input.tokenEnv ? `the push token of --token-env ${input.tokenEnv}` : 'the push token'] : []),
    ...(credentials ? [`the callback credentials of --auth-credentials-env ${input.authCredentialsEnv}`] : []),
  ];
  const { conn, client } = await pushClient(core, input.agent, input, secrets, bodySecrets);
  const answered = await client.createPushConfig(config);
  const remote = redactValue(redactPushConfig(answered ?? config), secrets);
  const id = String((remote as { id?: unknown }).id || config.id);
  await (
    await core.storage()
  ).write(function* () {
    const placeholder = !(yield* call('getTask', input.taskId));
    if (placeholder) yield* call('ensurePlaceholderTask', input.taskId, conn.alias);
    yield* call('upsertPushConfig', { id, agentAlias: conn.alias, taskId: input.taskId, url: input.url, redactedJson: remote });
    yield* journal(
      { type: 'a2a.push.config.created', agentAlias: conn.alias, taskId: input.taskId, payload: { config: remote, placeholder_task: placeholder } },
      [...secrets, ...conn.outbound.secrets],
    );
  });
  return { agent: conn.alias, task_id: input.taskId, config: remote };
}

export async function getPushConfig(core: Core, agent: string, taskId: string, configId: string, options: PushCallOptions = {}) {
  const { conn, client } = await pushClient(core, agent, options);
  const config = redactPushConfig(await client.getPushConfig({ taskId, id: configId }));
  await (
    await core.storage()
  ).write(function* () {
    yield* journal(
      { type: 'a2a.push.config.fetched', agentAlias: conn.alias, taskId: (yield* call('getTask', taskId)) ? taskId : null, payload: { config } },
      conn.outbound.secrets,
    );
  });
  return { agent: conn.alias, task_id: taskId, config };
}

export async function listPushConfigs(core: Core, agent: string, taskId: string, page: { pageSize?: number; pageToken?: string } & PushCallOptions = {}) {
  const { conn, client } = await pushClient(core, agent, page);
  const answered = await client.listPushConfigs({
    taskId,
    ...(page.pageSize ? { pageSize: page.pageSize } : {}),
    ...(page.pageToken ? { pageToken: page.pageToken } : {}),
  });
  const configs = answered.configs.map(redactPushConfig);
  const local = await (await core.storage()).conversation.listPushConfigsOfTask(taskId);
  return { agent: conn.alias, task_id: taskId, configs, next_page_token: answered.nextPageToken, local };
}

export async function deletePushConfig(core: Core, agent: string, taskId: string, configId: string, options: PushCallOptions = {}) {
  const { conn, client } = await pushClient(core, agent, options);
  await client.deletePushConfig({ taskId, id: configId });
  await (
    await core.storage()
  ).write(function* () {
    yield* call('markPushConfigDeleted', taskId, configId);
    yield* journal({
      type: 'a2a.push.config.deleted',
      agentAlias: conn.alias,
      taskId: (yield* call('getTask', taskId)) ? taskId : null,
      payload: { task_id: taskId, config_id: configId },
    });
  });
  return { agent: conn.alias, task_id: taskId, config_id: configId, deleted: true as const };
}
