/**
 * `auth login | status | logout`: run an auth ref's flow now (OAuth2: fetch a token, or the device-code login; other
 * flows: check that their secret is there and fits on one header line), report what is cached (flow, token cached?, expires in — never the token),
 * and forget cached tokens. A login by agent alias uses the agent's auth ref; without one, it names the schemes the
 * agent's card declares and how to add a matching auth ref.
 */
import { authError, usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { isOAuthFlow, type AuthFlow } from '../config/auth-flow.js';
import { describeScheme, securitySchemesOf } from '../a2a/security-schemes.js';
import { cardUrl, parseCardText } from '../a2a/card.js';
import { httpRequest } from '../a2a/http.js';
import type { AgentRow } from '../store/rows/agents.js';
import type { AuthRefRow } from '../store/rows/auth-refs.js';
import type { DeviceCodePrompt, OAuthContext } from './oauth2/context.js';
import { isFresh, readToken, tokenAccount } from './oauth2/token-cache.js';
import { forgetToken, loginWith } from './oauth2/tokens.js';
import { refuseControlCharacters } from './oauth2/token-text.js';
import { refSecret } from './resolve.js';
import { boundRef, localBindings, type LocalBinding } from './host-trust.js';

export interface LoginOptions {
  onDeviceCode?: (prompt: DeviceCodePrompt) => void;
}

export interface LoginResult {
  auth_ref: string;
  /** The agent the login was asked for, when it was asked by alias. */
  agent: string | null;
  flow: AuthFlow['type'];
  /** OAuth2: a token is now cached; other flows: their secret is present (nothing to log in to). */
  logged_in: boolean;
  token_cached: boolean;
  /** Where the token is cached besides memory. */
  keyring: boolean;
  expires_in: number | null;
  scope: string | null;
}

const SCHEME_HINT: Record<string, string> = {
  http: '--flow basic --username <user> (Basic) or the default header flow (Bearer)',
  api_key: '--flow api_key --in header|query|cookie --key-name <name>',
  oauth2: '--flow oauth2_client_credentials --token-url <url> --client-id <id> (or oauth2_device_code)',
  openid_connect: '--flow oauth2_client_credentials --issuer <url> --client-id <id>',
  mtls: 'a client certificate: client_tls in [agents.<alias>]',
};

/** The agent's cached card, else its public card read now (not stored; the agent has no credentials to send); null when unreadable. */
async function cardOf(core: Core, agent: AgentRow): Promise<unknown | null> {
  if (agent.card) return agent.card.json;
  try {
    const url = cardUrl(agent.baseUrl);
    const res = await httpRequest({
      url,
      headers: { Accept: 'application/json' },
      timeoutMs: core.timeoutMs,
      dispatcher: core.dispatcher,
      maxResponseBytes: 1024 * 1024,
    });
    return res.status === 200 ? parseCardText(res.body, url) : null;
  } catch {
    return null;
  }
}

/** An agent without an auth ref: what its card declares and the `auth add` that fits. */
async function noAuthRef(core: Core, agent: AgentRow): Promise<never> {
  const card = await cardOf(core, agent);
  const schemes = card ? securitySchemesOf(card).schemes : [];
  const declared = schemes.length
    ? schemes.map((s) => `${s.name}: ${describeScheme(s)}`).join('; ')
    : card
      ? 'no security schemes'
      : 'nothing missive could read (its card did not load)';
  const hints = [...new Set(schemes.map((s) => SCHEME_HINT[s.type]).filter((h): h is string => !!h))];
  throw authError(
    'no_auth_ref',
    `agent "${agent.alias}" has no auth ref; its card declares ${declared}`,
    `Add one: missive auth add <name> --env VAR|--keyring-service S --keyring-account A ${hints.length ? hints.join(' / ') : '[--flow …]'}, then set auth_ref in [agents.${agent.alias}] or register the agent with --auth-ref <name>.`,
  );
}

/** The auth ref a login / status / logout names: an auth ref by name, else the auth ref of the agent with that alias. */
async function refForTarget(core: Core, target: string): Promise<{ ref: AuthRefRow; agent: string | null } | { agentWithoutRef: AgentRow }> {
  const storage = await core.storage();
  const ref = await storage.authRefs.get(target);
  if (ref) return { ref, agent: null };
  const agent = await storage.agents.get(target);
  if (!agent) throw usageError('unknown_auth_ref', `no auth ref or agent named "${target}"`, 'List them with: missive auth list, missive agent list');
  if (agent.authRefName) return { ref: (await storage.authRefs.get(agent.authRefName))!, agent: agent.alias };
  return { agentWithoutRef: agent };
}

/** The target's auth ref, or the no_auth_ref error that says what the agent's card asks for. */
async function requireTarget(core: Core, target: string): Promise<{ ref: AuthRefRow; agent: string | null }> {
  const found = await refForTarget(core, target);
  return 'agentWithoutRef' in found ? noAuthRef(core, found.agentWithoutRef) : found;
}

const oauthContext = (core: Core, options: LoginOptions = {}): OAuthContext => ({
  profile: core.config.profile,
  secrets: core.secrets,
  timeoutMs: core.timeoutMs,
  dispatcher: core.dispatcher,
  onDeviceCode: options.onDeviceCode,
});

export async function loginAuth(core: Core, target: string, options: LoginOptions = {}): Promise<LoginResult> {
  const { ref: stored, agent } = await requireTarget(core, target);
  // The secret, and on a shared store the token endpoint it goes to, as this host bound them.
  const ref = boundRef(core, stored);
  const flow = ref.flow;
  const base = { auth_ref: ref.name, agent, flow: flow.type };
  if (!isOAuthFlow(flow)) {
    const secret = (await refSecret(ref, core.env, core.secrets))!;
    const where = ref.kind === 'env' ? `environment variable ${ref.envVar}` : `the keyring entry ${ref.keyringService}/${ref.keyringAccount}`;
    const fix = ref.kind === 'env' ? `export ${ref.envVar}=<secret> without line breaks` : `store it again: missive auth set-secret ${ref.name}`;
    refuseControlCharacters(secret, `the secret of auth ref "${ref.name}" (${where})`, `Give the secret on one line: ${fix}.`);
    return { ...base, logged_in: true, token_cached: false, keyring: false, expires_in: null, scope: null };
  }
  const ctx = oauthContext(core, options);
  const secret = await refSecret(ref, core.env, core.secrets, flow.type === 'oauth2_device_code');
  const { token, keyring } = await loginWith({ name: ref.name, flow }, { id: flow.client_id, secret }, ctx);
  await (
    await core.storage()
  ).journal.append({ type: 'missive.auth.login', payload: { name: ref.name, flow: flow.type, keyring } }, [token.access_token, ...(secret ? [secret] : [])]);
  const expiresIn = token.expires_at === null ? null : Math.max(0, Math.round((token.expires_at - Date.now()) / 1000));
  return { ...base, logged_in: true, token_cached: true, keyring, expires_in: expiresIn, scope: token.scope };
}

export interface AuthStatusView {
  name: string;
  flow: AuthFlow['type'];
  /** Whether the flow's secret (password, API key, client secret) is present: env set, keyring entry stored; null when unknown. */
  secret_present: boolean | null;
  /** OAuth2 only (null for other flows): the cached token's state, never the token. */
  token_status: { cached: boolean; where: 'memory' | 'keyring' | null; expires_in: number | null; fresh: boolean; refreshable: boolean } | null;
}

/** A ref's state, as this host binds it (on a shared store, a ref not bound here has no secret on this host). */
async function statusOf(core: Core, { ref, bound }: LocalBinding): Promise<AuthStatusView> {
  const secret = bound ? await refSecret(ref, core.env, core.secrets, true).catch(() => null) : null;
  const optionalSecret = ref.flow.type === 'oauth2_device_code';
  const keyringDown = ref.kind === 'keyring' && !(await core.secrets.available()).ok;
  const view: AuthStatusView = {
    name: ref.name,
    flow: ref.flow.type,
    secret_present: keyringDown ? null : optionalSecret && !secret ? false : !!secret,
    token_status: null,
  };
  if (!isOAuthFlow(ref.flow)) return view;
  const cached = await readToken(core.secrets, tokenAccount(core.config.profile, ref.name));
  const now = Date.now();
  view.token_status = cached
    ? {
        cached: true,
        where: cached.where,
        expires_in: cached.token.expires_at === null ? null : Math.round((cached.token.expires_at - now) / 1000),
        fresh: isFresh(cached.token, now),
        refreshable: cached.token.refresh_token !== null,
      }
    : { cached: false, where: null, expires_in: null, fresh: false, refreshable: false };
  return view;
}

/** The state of one auth ref (by name or agent alias), or of all. */
export async function authStatus(core: Core, target?: string): Promise<{ auth_refs: AuthStatusView[] }> {
  const refs = target ? [(await requireTarget(core, target)).ref] : await (await core.storage()).authRefs.list();
  const bindingOf = localBindings(core);
  return { auth_refs: await Promise.all(refs.map((r) => statusOf(core, bindingOf(r)))) };
}

/** Forgets the cached tokens of an auth ref (memory and keyring); its secret stays. */
export async function logoutAuth(core: Core, target: string): Promise<{ name: string; dropped: boolean; memory: boolean; keyring: boolean }> {
  const { ref } = await requireTarget(core, target);
  const dropped = await forgetToken(ref.name, { profile: core.config.profile, secrets: core.secrets });
  await (await core.storage()).journal.append({ type: 'missive.auth.logout', payload: { name: ref.name, ...dropped } });
  return { name: ref.name, dropped: dropped.memory || dropped.keyring, ...dropped };
}
