/**
 * `push create|get|list|delete`: A2A push notification config CRUD over both bindings. Credentials (token, the
 * authentication credentials read from an env var) go to the agent and nowhere else: rows, events and output hold
 * them redacted.
 */
import { randomUUID } from 'node:crypto';
import { ListTaskPushNotificationConfigsResponse, TaskPushNotificationConfig } from '@a2a-js/sdk';
import { authError, usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { callUnary } from '../a2a/bindings.js';
import { connect } from '../agents/connection.js';
import type { CardResult } from '../agents/discovery.js';
import { capabilityView } from '../a2a/capabilities.js';
import type { Binding } from '../config/schema.js';
import { validateBaseUrl } from '../validation/url.js';
import { REDACTED, redactValue } from '../security/redact.js';
import { call, commitSteps, journal } from '../store/steps.js';

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
export function redactPushConfig(config: Record<string, any>): Record<string, unknown> {
  const copy: Record<string, any> = { ...config };
  if (copy.token) copy.token = REDACTED;
  if (copy.authentication?.credentials) copy.authentication = { ...copy.authentication, credentials: REDACTED };
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

async function callPush(core: Core, agent: string, method: Parameters<typeof callUnary>[1], params: Record<string, unknown>, options: PushCallOptions, extraSecrets: string[] = [], bodySecrets: string[] = []) {
  const conn = await connect(core, agent, { bodySecrets, binding: options.binding, checkCard: requirePush(options.force) });
  const raw = await callUnary({ ...conn.call, secrets: [...conn.call.secrets ?? [], ...extraSecrets] }, method, { ...(conn.iface.tenant ? { tenant: conn.iface.tenant } : {}), ...params });
  return { conn, raw };
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
  ) as Record<string, unknown>;
  const bodySecrets = [
    ...(token ? [input.tokenEnv ? `the push token of --token-env ${input.tokenEnv}` : 'the push token'] : []),
    ...(credentials ? [`the callback credentials of --auth-credentials-env ${input.authCredentialsEnv}`] : []),
  ];
  const { conn, raw } = await callPush(core, input.agent, 'CreateTaskPushNotificationConfig', config, input, secrets, bodySecrets);
  const remote = redactValue(redactPushConfig((raw ?? config) as Record<string, unknown>), secrets);
  const id = String((remote as { id?: unknown }).id || config.id);
  await commitSteps(core, function* () {
    const placeholder = !(yield* call('getTask', input.taskId));
    if (placeholder) yield* call('ensurePlaceholderTask', input.taskId, conn.alias);
    yield* call('upsertPushConfig', { id, agentAlias: conn.alias, taskId: input.taskId, url: input.url, redactedJson: remote });
    yield* journal({ type: 'a2a.push.config.created', agentAlias: conn.alias, taskId: input.taskId, payload: { config: remote, placeholder_task: placeholder } }, [...secrets, ...conn.outbound.secrets]);
  });
  return { agent: conn.alias, task_id: input.taskId, config: remote };
}

export async function getPushConfig(core: Core, agent: string, taskId: string, configId: string, options: PushCallOptions = {}) {
  const { conn, raw } = await callPush(core, agent, 'GetTaskPushNotificationConfig', { taskId, id: configId }, options);
  const config = redactPushConfig(TaskPushNotificationConfig.toJSON(TaskPushNotificationConfig.fromJSON(raw as object)) as Record<string, unknown>);
  await commitSteps(core, function* () {
    yield* journal({ type: 'a2a.push.config.fetched', agentAlias: conn.alias, taskId: (yield* call('getTask', taskId)) ? taskId : null, payload: { config } }, conn.outbound.secrets);
  });
  return { agent: conn.alias, task_id: taskId, config };
}

export async function listPushConfigs(core: Core, agent: string, taskId: string, page: { pageSize?: number; pageToken?: string } & PushCallOptions = {}) {
  const { conn, raw } = await callPush(core, agent, 'ListTaskPushNotificationConfigs', { taskId, ...(page.pageSize ? { pageSize: page.pageSize } : {}), ...(page.pageToken ? { pageToken: page.pageToken } : {}) }, page);
  const decoded = ListTaskPushNotificationConfigsResponse.fromJSON((raw ?? {}) as object);
  const configs = decoded.configs.map((c) => redactPushConfig(TaskPushNotificationConfig.toJSON(c) as Record<string, unknown>));
  const local = await (await core.storage()).conversation.listPushConfigsOfTask(taskId);
  return { agent: conn.alias, task_id: taskId, configs, next_page_token: decoded.nextPageToken || null, local };
}

export async function deletePushConfig(core: Core, agent: string, taskId: string, configId: string, options: PushCallOptions = {}) {
  const { conn } = await callPush(core, agent, 'DeleteTaskPushNotificationConfig', { taskId, id: configId }, options);
  await commitSteps(core, function* () {
    yield* call('markPushConfigDeleted', taskId, configId);
    yield* journal({ type: 'a2a.push.config.deleted', agentAlias: conn.alias, taskId: (yield* call('getTask', taskId)) ? taskId : null, payload: { task_id: taskId, config_id: configId } });
  });
  return { agent: conn.alias, task_id: taskId, config_id: configId, deleted: true as const };
}
