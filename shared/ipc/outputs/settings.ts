/** What Settings' channels answer: the webhook receiver's state, auth refs, logins. */
import { z } from 'zod';
import { count, loose, maybeText, text } from './common.js';

/** The webhook receiver's own state (core/webhook/receiver.ts `ReceiverStats`) and its last callback. */
export const webhookStats = loose({
  listening: z.boolean(),
  url: maybeText,
  accepted: count,
  rejected: count,
  last: loose({ at: text, status: count, variant: maybeText, task_id: maybeText, event_type: text, reason: maybeText }).nullable(),
});

/** One push callback the journal holds (core/webhook/callback-list.ts `ReceivedCallback`): redacted, headers never stored. */
export const receivedCallback = loose({
  sequence: count,
  at: text,
  event_type: text,
  outcome: z.enum(['accepted', 'rejected']),
  status: count.nullable(),
  reason: maybeText,
  agent: maybeText,
  task_id: maybeText,
  context_id: maybeText,
  variant: z.enum(['task', 'message', 'statusUpdate', 'artifactUpdate']).nullable(),
  state: maybeText,
  body: z.unknown(),
});

const authFlowName = z.enum(['header', 'basic', 'api_key', 'oauth2_client_credentials', 'oauth2_device_code']);

/** core/auth/service.ts `listAuth`: the auth refs (where each secret lives, never the secret) and the keyring. */
export const authList = z.object({
  /** `session_only`: a secret set now lasts until the app quits (no keyring), `session_reason` says why. */
  keyring: loose({ backend: text, available: z.boolean(), reason: maybeText, session_only: z.boolean(), session_reason: maybeText }),
  auth_refs: z.array(
    loose({
      name: text,
      kind: z.enum(['env', 'keyring']),
      source: text,
      header: text,
      scheme: text,
      env: maybeText,
      keyring_service: maybeText,
      keyring_account: maybeText,
      /** The flow and its non-secret settings. */
      flow: loose({ type: authFlowName }),
      /** env: whether the variable is set; keyring: whether a secret is stored (null: the keyring is unavailable). */
      present: z.boolean().nullable(),
      /** The local agents that authenticate with it. */
      used_by: z.array(text),
      /** A shared store only: whether this host bound it to a secret of its own, and what changed since. */
      this_host: loose({ bound: z.boolean(), changes: z.array(text) }).nullable(),
    }),
  ),
});

/** core/auth/login.ts `AuthStatusView`: a ref's flow and token state, never the token. */
export const authStatus = loose({
  name: text,
  flow: authFlowName,
  secret_present: z.boolean().nullable(),
  /** OAuth2 flows only. */
  token_status: loose({
    cached: z.boolean(),
    where: z.enum(['memory', 'keyring']).nullable(),
    expires_in: count.nullable(),
    fresh: z.boolean(),
    refreshable: z.boolean(),
  }).nullable(),
});

/** core/auth/login.ts `LoginResult`. */
export const loginResult = loose({
  auth_ref: text,
  agent: maybeText,
  flow: authFlowName,
  logged_in: z.boolean(),
  token_cached: z.boolean(),
  keyring: z.boolean(),
  expires_in: count.nullable(),
  scope: maybeText,
});
