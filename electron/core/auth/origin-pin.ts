/**
 * Credentials stay on their origin. Everything that authenticates missive to an agent (its auth ref,
 * `--bearer-token-env`, every `--header`) and every secret missive hands an agent (push tokens and callback
 * credentials) is pinned to the origin the agent was registered at, plus origins the user trusts explicitly. An Agent
 * Card can point an interface anywhere; when it points at another origin:
 *   - nothing to send: the interface is used as is;
 *   - `--allow-cross-origin-auth` (or the agent's `allow_cross_origin_auth`): used, but without the credentials;
 *   - otherwise: refused before anything is sent (exit 77), naming both origins.
 * Push secrets travel in the request body and cannot be withheld, so they need a trusted origin.
 */
import { authError } from '../../../shared/errors.js';
import { redactUrl } from '../security/redact.js';
import { formatOrigin, isLoopbackHost, originKey, sameOrigin, type OriginKey } from '../../../shared/origins.js';

export interface PinInput {
  alias: string;
  baseUrl: string;
  trustedOrigins: readonly string[];
  /** The URL credentials would go to (the selected interface). */
  target: string;
  /** What would authenticate missive to the agent: names only, for the message (e.g. `auth ref "prod"`, `--header X-Key`). */
  credentialSources: readonly string[];
  /** Secrets missive would hand the agent in the request body (push token, callback credentials), names only. */
  bodySecrets?: readonly string[];
  allowCrossOrigin: boolean;
}

export interface PinDecision {
  /** `sent`: same or trusted origin; `withheld`: cross-origin and allowed without them; `none`: nothing to send. */
  outcome: 'sent' | 'withheld' | 'none';
  pinned_origins: string[];
  target_origin: string | null;
  same_origin: boolean;
}

/** The registered origin and the trusted ones, as keys. */
export function pinnedOrigins(baseUrl: string, trusted: readonly string[]): OriginKey[] {
  return [baseUrl, ...trusted].map(originKey).filter((o): o is OriginKey => o !== null);
}

/** Where the credentials are pinned and where the target is, without deciding anything. */
export function pinView(input: Pick<PinInput, 'baseUrl' | 'trustedOrigins' | 'target'>): Omit<PinDecision, 'outcome'> {
  const pinned = pinnedOrigins(input.baseUrl, input.trustedOrigins);
  const target = originKey(input.target);
  return {
    pinned_origins: pinned.map(formatOrigin),
    target_origin: target ? formatOrigin(target) : null,
    same_origin: target !== null && pinned.some((o) => sameOrigin(o, target)),
  };
}

export function decidePin(input: PinInput): PinDecision {
  const view = pinView(input);
  const same = view.same_origin;
  const bodySecrets = input.bodySecrets ?? [];
  if (!input.credentialSources.length && !bodySecrets.length) return { outcome: 'none', ...view };
  if (same) return { outcome: 'sent', ...view };
  const where = view.target_origin ?? redactUrl(input.target);
  const home = view.pinned_origins.join(', ') || redactUrl(input.baseUrl);
  const trustHelp = `If ${where} belongs to the same agent, trust it: add trusted_origins = ["${where}"] to [agents.${input.alias}] in the config, or register the agent with --trust-origin ${where}.`;
  if (bodySecrets.length) {
    throw authError(
      'cross_origin_credentials',
      `the Agent Card of "${input.alias}" points its interface at ${where}, but ${bodySecrets.join(' and ')} for "${input.alias}" may only go to ${home}; nothing was sent`,
      trustHelp,
    );
  }
  if (input.allowCrossOrigin) return { outcome: 'withheld', ...view };
  throw authError(
    'cross_origin_credentials',
    `the Agent Card of "${input.alias}" points its interface at ${where}, but the credentials for "${input.alias}" (${input.credentialSources.join(', ')}) are pinned to ${home}; nothing was sent`,
    `${trustHelp} To call ${where} without credentials, pass --allow-cross-origin-auth.`,
  );
}

/** A warning when a credential would cross the network in plain text, or undefined. */
export function plaintextWarning(url: string, what: string): string | undefined {
  const origin = originKey(url);
  if (!origin || origin.secure || isLoopbackHost(origin.host)) return undefined;
  return `${what} will go to ${formatOrigin(origin)} over plain http: anyone on the network path can read it. Use https.`;
}
