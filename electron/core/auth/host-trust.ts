/**
 * The trust model of a shared store (docs/security.md, "Who decides what"). A shared PostgreSQL store can be written
 * by every teammate and by anyone holding its database role, so on such a store a row never decides, on its own,
 * which of this host's secrets are read or where they go:
 *
 *   - **Where a secret comes from is this host's decision.** An auth ref's row says how a secret is used (header,
 *     scheme, flow); which env var or keyring entry holds it is bound on this host (`auth add` here, or
 *     `auth bind`), in host-ledger.ts's file. A ref whose shared settings changed since it was bound is refused.
 *   - **Where credentials go is this host's decision.** An agent's origins (base URL and trusted origins) and its
 *     auth ref are confirmed on this host (`agent add`/`agent set` here, or `agent trust`). A credentialed request to
 *     an agent whose shared row moved (a new origin, another auth ref) or was never confirmed here is refused before
 *     anything is sent, naming the change.
 *   - **A process may narrow further**: a gateway uses only the auth refs its operator lists (`[gateway]
 *     job_auth_refs`), whatever the queue asks for.
 *
 * The local SQLite store is not shared: it lives in the user's private state directory, so its rows are the user's
 * own decisions and are used as they are (the gateway's allow-list still applies when configured).
 */
import { authError, MissiveError, usageError } from '../../../shared/errors.js';
import { formatOrigin } from '../../../shared/origins.js';
import { pinnedOrigins } from './origin-pin.js';
import type { Core } from '../handle.js';
import type { AgentRow } from '../store/rows/agents.js';
import type { AuthRefRow } from '../store/rows/auth-refs.js';
import { isSharedStore, type PostgresSelection } from '../store/selection.js';
import { hostLedger, type AgentConfirmation, type RefBinding, type RefSettings, type SecretBinding, type StoreDecisions } from './host-ledger.js';

/** The codes of this module's refusals: a queued job refused by them fails at once (no retry changes a decision). */
export const TRUST_REFUSAL_CODES = ['agent_not_confirmed', 'shared_agent_changed', 'auth_ref_not_bound', 'shared_auth_ref_changed', 'auth_ref_not_allowed'].map(
  (reason) => `missive::auth::${reason}`,
);

/** Whether `core` works on a store other people can write (team mode). */
export const onSharedStore = (core: Core): boolean => isSharedStore(core.storeSelection);

/** The store a decision is about: server, database and schema (never the password). */
const storeIdOf = (selection: PostgresSelection): string => `${selection.display.replace(/\?.*$/, '')}#${selection.schema}`;

const storeId = (core: Core): string => storeIdOf(core.storeSelection as PostgresSelection);

const decisions = (core: Core): StoreDecisions => hostLedger(core.paths.state).read(storeId(core));

const change = (core: Core, fn: (d: StoreDecisions) => void): void => hostLedger(core.paths.state).update(storeId(core), fn);

// ---------------------------------------------------------------------------------------------------- auth refs

const settingsOf = (ref: AuthRefRow): RefSettings => ({ header: ref.headerName, scheme: ref.scheme, flow: ref.flow });

const show = (value: unknown): string => (value === undefined || value === null ? 'none' : Array.isArray(value) ? `[${value.join(', ')}]` : String(value));

/** What differs between the settings a ref was bound with and its row now, one phrase per setting. */
export function settingChanges(bound: RefSettings, now: RefSettings): string[] {
  const flat = (s: RefSettings): Record<string, unknown> => ({
    header: s.header,
    scheme: s.scheme,
    ...Object.fromEntries(Object.entries(s.flow).map(([k, v]) => [k === 'type' ? 'flow' : k, v])),
  });
  const a = flat(bound);
  const b = flat(now);
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .map((k) => `${k} ${show(a[k])} → ${show(b[k])}`);
}

const bindHelp = (name: string) =>
  `Bind it to a secret of yours on this host: missive auth bind ${name} --env VAR (or --keyring-service S --keyring-account A).`;

/** The gateway's allow-list (`[gateway] job_auth_refs`) refuses every other ref. */
function refuseUnlisted(core: Core, name: string): void {
  const allowed = core.authRefsAllowed;
  if (!allowed || allowed.has(name)) return;
  throw authError(
    'auth_ref_not_allowed',
    `this gateway does not use auth ref "${name}": it is not in its [gateway] job_auth_refs; nothing was sent`,
    `If the gateway's operator wants its jobs to use it, add "${name}" to [gateway] job_auth_refs in the gateway's config and restart it.`,
  );
}

/**
 * The ref as this host uses it to read a secret: on a shared store its env var or keyring entry come from this host's
 * binding, never from the row, and a row whose settings changed since the binding is refused (exit 77).
 */
export function boundRef(core: Core, ref: AuthRefRow): AuthRefRow {
  refuseUnlisted(core, ref.name);
  const { ref: local, bound, changes } = localBindings(core)(ref);
  if (!bound) {
    throw authError(
      'auth_ref_not_bound',
      `auth ref "${ref.name}" is defined on the shared store, but this host has not said which of its secrets it uses; nothing was sent`,
      bindHelp(ref.name),
    );
  }
  if (changes.length) {
    throw authError(
      'shared_auth_ref_changed',
      `auth ref "${ref.name}" was changed on the shared store since this host bound it (${changes.join('; ')}); nothing was sent`,
      `Check the change with whoever made it (missive events list --type 'missive.auth_ref.*'). If it is right, bind it again: missive auth bind ${ref.name} …`,
    );
  }
  return local;
}

export interface LocalBinding {
  /** The ref with this host's env var or keyring entry (none when it is not bound here). */
  ref: AuthRefRow;
  bound: boolean;
  /** What changed on the shared store since this host bound it. */
  changes: string[];
}

/**
 * Each ref as this host reads its secret (the local store: as it is), from one reading of this host's decisions: what
 * `boundRef` enforces, and what views show (`auth list`, the adapters' env var names) for a whole list at once.
 */
export function localBindings(core: Core): (ref: AuthRefRow) => LocalBinding {
  if (!onSharedStore(core)) return (ref) => ({ ref, bound: true, changes: [] });
  const bindings = decisions(core).auth_refs;
  return (ref) => {
    const binding = bindings[ref.name];
    if (!binding) return { ref: { ...ref, envVar: null, keyringService: null, keyringAccount: null }, bound: false, changes: [] };
    const local: AuthRefRow =
      binding.kind === 'env'
        ? { ...ref, kind: 'env', envVar: binding.env_var, keyringService: null, keyringAccount: null }
        : { ...ref, kind: 'keyring', envVar: null, keyringService: binding.keyring_service, keyringAccount: binding.keyring_account };
    return { ref: local, bound: true, changes: settingChanges(binding.settings, settingsOf(ref)) };
  };
}

/** What `auth bind` takes: an env var, or a keyring entry (service and account). */
export interface SecretBindingInput {
  env?: string;
  keyringService?: string;
  keyringAccount?: string;
}

export const secretBindingOf = (ref: AuthRefRow): SecretBinding =>
  ref.kind === 'env' ? { kind: 'env', env_var: ref.envVar! } : { kind: 'keyring', keyring_service: ref.keyringService!, keyring_account: ref.keyringAccount! };

/** Records on this host where `ref`'s secret comes from, with its shared settings as they are now (shared store only). */
export function recordBinding(core: Core, ref: AuthRefRow, secret: SecretBinding = secretBindingOf(ref)): RefBinding | null {
  if (!onSharedStore(core)) return null;
  const binding: RefBinding = { ...secret, settings: settingsOf(ref), bound_at: new Date().toISOString() };
  change(core, (d) => void (d.auth_refs[ref.name] = binding));
  return binding;
}

// -------------------------------------------------------------------------------------------------------- agents

/** The origins an agent's credentials may go to: its base URL's and the ones it trusts. */
export function credentialOrigins(agent: Pick<AgentRow, 'baseUrl' | 'trustedOrigins'>): string[] {
  return [...new Set(pinnedOrigins(agent.baseUrl, agent.trustedOrigins).map(formatOrigin))];
}

/** What this host records when it confirms `agent` as its row is now. */
const confirmationOfRow = (agent: Pick<AgentRow, 'baseUrl' | 'trustedOrigins' | 'authRefName'>): AgentConfirmation => ({
  origins: credentialOrigins(agent),
  auth_ref: agent.authRefName ?? null,
  confirmed_at: new Date().toISOString(),
});

/** Why `agent` (its row now) does not match what this host confirmed, one phrase per difference; empty: it matches. */
function confirmationGaps(agent: Pick<AgentRow, 'baseUrl' | 'trustedOrigins' | 'authRefName'>, confirmed: AgentConfirmation): string[] {
  const gaps: string[] = [];
  const fresh = credentialOrigins(agent).filter((o) => !confirmed.origins.includes(o));
  if (fresh.length) gaps.push(`its credentials would now go to ${fresh.join(', ')} (this host confirmed ${confirmed.origins.join(', ') || 'no origin'})`);
  if ((agent.authRefName ?? null) !== confirmed.auth_ref)
    gaps.push(`its auth ref is now ${show(agent.authRefName)} (this host confirmed ${show(confirmed.auth_ref)})`);
  return gaps;
}

/** Whether this host's confirmation of `agent` still holds (always on the local store). */
export function confirmationHolds(core: Core, agent: AgentRow): boolean {
  if (!onSharedStore(core)) return true;
  const confirmed = decisions(core).agents[agent.alias];
  return confirmed !== undefined && confirmationGaps(agent, confirmed).length === 0;
}

/**
 * Refuses (exit 77) to send credentials of any kind to an agent of a shared store that this host never confirmed,
 * or whose row moved since: `sending` names what would go (`auth ref "prod"`, `--header X-Key`, a push token).
 */
export function assertConfirmedAgent(
  core: Core,
  agent: Pick<AgentRow, 'alias' | 'baseUrl' | 'trustedOrigins' | 'authRefName'>,
  sending: readonly string[],
): void {
  if (!onSharedStore(core) || sending.length === 0) return;
  const confirmed = decisions(core).agents[agent.alias];
  const origins = credentialOrigins(agent).join(', ');
  if (!confirmed) {
    throw new MissiveError(
      'auth',
      'agent_not_confirmed',
      `agent "${agent.alias}" is registered on the shared store, and this host has not confirmed where its credentials go (${sending.join(', ')} to ${origins}); nothing was sent`,
      {
        help: `If ${origins} is where "${agent.alias}" runs, confirm it on this host: missive agent trust ${agent.alias}`,
        gui: { help: `If ${origins} is where "${agent.alias}" runs, confirm it on this host with the button below, then try again.` },
      },
    );
  }
  const gaps = confirmationGaps(agent, confirmed);
  if (gaps.length === 0) return;
  throw new MissiveError(
    'auth',
    'shared_agent_changed',
    `agent "${agent.alias}" was changed on the shared store since this host confirmed it: ${gaps.join('; ')}; nothing was sent (${sending.join(', ')})`,
    {
      help: `Check the change with whoever made it (missive events list --agent ${agent.alias}). If it is right, confirm it again: missive agent trust ${agent.alias}`,
      gui: {
        help: `Check the change with whoever made it (Events, filtered on agent ${agent.alias}). If it is right, confirm it again with the button below, then try again.`,
      },
    },
  );
}

/** Records on this host that `agent`'s credentials may go to its origins as they are now (shared store only). */
export function recordConfirmation(core: Core, agent: Pick<AgentRow, 'alias' | 'baseUrl' | 'trustedOrigins' | 'authRefName'>): AgentConfirmation | null {
  if (!onSharedStore(core)) return null;
  const confirmation = confirmationOfRow(agent);
  change(core, (d) => void (d.agents[agent.alias] = confirmation));
  return confirmation;
}

/** What this host confirmed about `alias`, or null (nothing, or the local store). */
export function confirmationOf(core: Core, alias: string): AgentConfirmation | null {
  return onSharedStore(core) ? (decisions(core).agents[alias] ?? null) : null;
}

/** After this host changed an agent it had confirmed (`before`), the confirmation follows the change. */
export function followConfirmation(core: Core, before: AgentRow, after: AgentRow): void {
  if (!onSharedStore(core) || !confirmationHolds(core, before)) return;
  change(core, (d) => {
    if (before.alias !== after.alias) delete d.agents[before.alias];
    d.agents[after.alias] = confirmationOfRow(after);
  });
}

/** The usage error of a command that only means something on a shared store. */
export function requireSharedStore(core: Core, command: string): void {
  if (onSharedStore(core)) return;
  throw usageError(
    'store_not_shared',
    `${command} is for a shared store: the local SQLite store's rows are already this user's own decisions`,
    'Select a shared store (--store, MISSIVE_STORE_URL or [store] url) to confirm its rows on this host.',
  );
}
