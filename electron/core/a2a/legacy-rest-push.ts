/**
 * Creating a push-notification config on a v0.3 HTTP+JSON agent: the one v0.3 call missive writes itself. The SDK's
 * compat REST transport posts a bare `TaskPushNotificationConfig`, but v0.3 servers (the @a2a-js/sdk 0.3 line among
 * them) read the body as the whole `CreateTaskPushNotificationConfigRequest` and refuse it without `config`. The body
 * sent here carries both shapes, so either kind of server finds what it reads, and the answer (a v0.3
 * `TaskPushNotificationConfig`, proto JSON) is returned as v1.0 JSON like every other call.
 */
import { randomUUID } from 'node:crypto';
import { protocolError } from '../../../shared/errors.js';
import type { BindingCall } from './binding-call.js';
import { exchange, restRequest } from './json-wire.js';
import type { CreatePushConfigParams, PushConfigJson } from './operations.js';

interface V03Config {
  name?: string;
  pushNotificationConfig?: { id?: string; url?: string; token?: string; authentication?: { schemes?: string[]; credentials?: string } };
}

export async function createLegacyRestPushConfig(call: BindingCall, v1: CreatePushConfigParams): Promise<PushConfigJson> {
  const taskId = String(v1.taskId ?? '');
  const id = v1.id || randomUUID();
  const name = `tasks/${taskId}/pushNotificationConfigs/${id}`;
  const config: V03Config = {
    name,
    pushNotificationConfig: {
      id,
      url: v1.url,
      ...(v1.token ? { token: v1.token } : {}),
      ...(v1.authentication
        ? { authentication: { schemes: v1.authentication.scheme ? [v1.authentication.scheme] : [], credentials: v1.authentication.credentials } }
        : {}),
    },
  };
  const body = { parent: `tasks/${taskId}`, configId: id, config, ...config };
  const route = { method: 'POST', path: `v1/tasks/${encodeURIComponent(taskId)}/pushNotificationConfigs`, contentType: 'application/json' } as const;
  const what = 'CreateTaskPushNotificationConfig';
  const answer = (await exchange(call, restRequest(call, route, what, body), what)) as V03Config | null;
  const created = answer?.pushNotificationConfig;
  if (answer && typeof answer !== 'object') throw protocolError('invalid_response', 'the v0.3 push config answer is not a JSON object');
  const answeredTask = /^tasks\/([^/]+)\//.exec(answer?.name ?? '')?.[1];
  return {
    taskId: answeredTask ? decodeURIComponent(answeredTask) : taskId,
    id: created?.id || id,
    url: created?.url ?? v1.url,
    ...((created?.token ?? v1.token) ? { token: created?.token ?? v1.token } : {}),
    ...(created?.authentication
      ? { authentication: { scheme: created.authentication.schemes?.[0] ?? '', credentials: created.authentication.credentials ?? '' } }
      : v1.authentication
        ? { authentication: v1.authentication }
        : {}),
  };
}
