/**
 * Where and how a push receiver listens: each flag of `missive webhook run` (or the port typed in the app's Settings)
 * over `[webhook]` of the config, over the receiver's defaults (127.0.0.1, any free port, `/a2a/push`, no auth). The
 * token is read from the environment variable `--auth-token-env` or `[webhook] auth_token_env` names, never from a file
 * of missive's; its header is `--auth-header` / `auth_header`, else `Authorization` with a scheme, else
 * `X-A2A-Notification-Token`.
 */
import { configError, usageError } from '../../../shared/errors.js';
import type { EffectiveConfig } from '../config/load.js';
import { webhookAuth, type WebhookAuth } from './auth.js';

/** `webhook run`'s flags: the same settings as `[webhook]`, each one over the config's. */
export type ReceiverFlags = EffectiveConfig['webhook'];

export interface ReceiverSettings {
  host: string;
  port: number;
  path: string;
  auth?: WebhookAuth;
  maxBodyBytes?: number;
}

export const DEFAULT_RECEIVER_HOST = '127.0.0.1';
export const DEFAULT_RECEIVER_PATH = '/a2a/push';

/** The settings of a receiver: `flags` over `[webhook]`; a token variable that is not set is an error naming where it was asked for. */
export function receiverSettings(config: EffectiveConfig['webhook'], env: NodeJS.ProcessEnv, flags: ReceiverFlags = {}): ReceiverSettings {
  const path = flags.path ?? config.path ?? DEFAULT_RECEIVER_PATH;
  if (!path.startsWith('/')) throw usageError('invalid_path', '--path must start with /');
  const fromFlag = flags.authTokenEnv !== undefined;
  const tokenEnv = flags.authTokenEnv ?? config.authTokenEnv;
  const header = flags.authHeader ?? (fromFlag ? undefined : config.authHeader);
  const scheme = flags.authScheme ?? (fromFlag ? undefined : config.authScheme);
  let auth: WebhookAuth | undefined;
  if (tokenEnv) {
    const token = env[tokenEnv];
    if (!token) {
      if (fromFlag) throw usageError('token_env_missing', `--auth-token-env ${tokenEnv} is not set in the environment`);
      throw configError(
        'token_env_missing',
        `[webhook] auth_token_env names ${tokenEnv}, which is not set in the environment`,
        `export ${tokenEnv}=<the token agents send>, or remove auth_token_env from [webhook] to accept callbacks without one.`,
      );
    }
    auth = webhookAuth(token, { header, scheme });
  } else if (flags.authHeader || flags.authScheme) {
    throw usageError('token_required', '--auth-header and --auth-scheme need --auth-token-env');
  }
  return {
    host: flags.host ?? config.host ?? DEFAULT_RECEIVER_HOST,
    port: flags.port ?? config.port ?? 0,
    path,
    auth,
    maxBodyBytes: flags.maxBodyBytes ?? config.maxBodyBytes,
  };
}
