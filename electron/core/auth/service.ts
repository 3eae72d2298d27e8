/**
 * Auth ref service: define where a secret lives and which flow turns it into request credentials, and put secrets into
 * the OS keyring. Secrets never come back.
 */
import { authError, configError, usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { envVarName, headerName, httpUrl } from '../config/schema.js';
import { AUTH_FLOWS, API_KEY_PLACES, flowFromSection, flowSettingIssues, type AuthFlow, type AuthFlowName } from '../config/auth-flow.js';
import type { AuthRefRow } from '../store/rows/auth-refs.js';
import { validateAlias } from '../validation/alias.js';
import { storedText } from '../validation/stored-text.js';
import { KEYRING_FALLBACK_HELP } from './secret-store.js';
import { refuseControlCharacters } from './oauth2/token-text.js';
import { secretPersistence } from './session-secrets.js';
import { boundRef, localBindings, onSharedStore, recordBinding, requireSharedStore, type SecretBindingInput } from './host-trust.js';
import type { SecretBinding } from './host-ledger.js';

export interface AuthRefView {
  name: string;
  kind: 'env' | 'keyring';
  source: string;
  header: string;
  scheme: string;
  env: string | null;
  keyring_service: string | null;
  keyring_account: string | null;
  /** The flow and its non-secret settings (username, key name, token URL, client id, scopes…). */
  flow: AuthFlow;
  /** env: whether the variable is set; keyring: whether a secret is stored (null when the keyring is unavailable). */
  present: boolean | null;
  /** The local agents that authenticate with this ref. */
  used_by: string[];
  /**
   * A shared store only (null on the local store): whether this host bound the ref to a secret of its own (`env` and
   * `keyring_*` above are then this host's, else null), and what changed on the shared store since it did.
   */
  this_host: { bound: boolean; changes: string[] } | null;
}

/** `usedBy` (the agents using each ref) and `bindingOf` (this host's bindings): read once for a whole list. */
async function view(core: Core, stored: AuthRefRow, keyringOk: boolean, usedBy?: Map<string, string[]>, bindingOf = localBindings(core)): Promise<AuthRefView> {
  usedBy ??= await (await core.storage()).agents.aliasesByAuthRef();
  // On a shared store, where this host reads the secret from (the row's own env var or keyring entry is not used).
  const { ref, bound, changes } = bindingOf(stored);
  let present: boolean | null;
  if (!bound) present = false;
  else if (ref.kind === 'env') present = !!core.env[ref.envVar!];
  else present = keyringOk ? (await core.secrets.get(ref.keyringService!, ref.keyringAccount!)) !== null : null;
  return {
    name: ref.name,
    kind: ref.kind,
    source: ref.source,
    header: ref.headerName,
    scheme: ref.scheme,
    env: ref.envVar,
    keyring_service: ref.keyringService,
    keyring_account: ref.keyringAccount,
    flow: ref.flow,
    present,
    used_by: usedBy.get(ref.name) ?? [],
    this_host: onSharedStore(core) ? { bound, changes } : null,
  };
}

export async function listAuth(core: Core) {
  const availability = await core.secrets.available();
  const storage = await core.storage();
  const usedBy = await storage.agents.aliasesByAuthRef();
  const bindingOf = localBindings(core);
  const refs = await Promise.all((await storage.authRefs.list()).map((r) => view(core, r, availability.ok, usedBy, bindingOf)));
  const persistence = await secretPersistence(core.secrets);
  return {
    keyring: {
      backend: core.secrets.backend,
      available: availability.ok,
      reason: availability.ok ? null : availability.reason,
      session_only: !persistence.persistent,
      session_reason: persistence.reason,
    },
    auth_refs: refs,
  };
}

export interface AddAuthInput {
  name: string;
  env?: string;
  keyringService?: string;
  keyringAccount?: string;
  header?: string;
  scheme?: string;
  flow?: string;
  username?: string;
  /** api_key: where the key goes (header, query, cookie) and under which name. */
  in?: string;
  keyName?: string;
  tokenUrl?: string;
  issuer?: string;
  clientId?: string;
  scopes?: string[];
  audience?: string;
  deviceAuthorizationUrl?: string;
}

/** The flow `auth add` was asked for, checked like a config section. */
function flowOfInput(input: AddAuthInput): AuthFlow {
  const flow = (input.flow ?? 'header') as AuthFlowName;
  if (!AUTH_FLOWS.includes(flow)) throw usageError('invalid_auth_ref', `--flow "${input.flow}" is not one of ${AUTH_FLOWS.join(', ')}`);
  if (input.in !== undefined && !(API_KEY_PLACES as readonly string[]).includes(input.in))
    throw usageError('invalid_auth_ref', `--in "${input.in}" is not one of ${API_KEY_PLACES.join(', ')}`);
  for (const [flag, url] of [
    ['--token-url', input.tokenUrl],
    ['--issuer', input.issuer],
    ['--device-authorization-url', input.deviceAuthorizationUrl],
  ] as const) {
    if (url !== undefined && !httpUrl.safeParse(url).success)
      throw usageError('invalid_auth_ref', `${flag} "${url}" is not an http(s) URL without credentials`);
  }
  if (input.username?.includes(':')) throw usageError('invalid_auth_ref', '--username must not contain ":"');
  if (input.keyName !== undefined && /[\s;=,]/.test(input.keyName)) throw usageError('invalid_auth_ref', '--key-name must not contain spaces, ; = or ,');
  if (input.scopes?.some((s) => !s || /\s/.test(s))) throw usageError('invalid_auth_ref', 'each --scope is one scope without spaces (repeat --scope)');
  const settings = {
    flow,
    username: input.username,
    in: input.in as (typeof API_KEY_PLACES)[number] | undefined,
    name: input.keyName,
    token_url: input.tokenUrl,
    issuer: input.issuer,
    client_id: input.clientId,
    scopes: input.scopes,
    audience: input.audience,
    device_authorization_url: input.deviceAuthorizationUrl,
  };
  const issues = flowSettingIssues(flow, settings);
  if (issues.length) {
    throw usageError(
      'invalid_auth_ref',
      issues.join('; '),
      'The flags: --username, --key-name and --in, --client-id, --token-url or --issuer, --device-authorization-url, --scope (see missive auth add --help).',
    );
  }
  return flowFromSection(settings);
}

/** Where a secret lives, from `--env` or `--keyring-service` and `--keyring-account` (`auth add`, `auth bind`). */
function secretSourceOf(input: SecretBindingInput): SecretBinding {
  storedText(input.keyringService, '--keyring-service');
  storedText(input.keyringAccount, '--keyring-account');
  const keyring = input.keyringService !== undefined || input.keyringAccount !== undefined;
  if (!!input.env === keyring) throw usageError('invalid_auth_ref', 'give either --env VAR or --keyring-service and --keyring-account');
  if (input.env && !envVarName.safeParse(input.env).success) throw usageError('invalid_auth_ref', `--env "${input.env}" is not an environment variable name`);
  if (keyring && !(input.keyringService && input.keyringAccount))
    throw usageError('invalid_auth_ref', 'keyring auth refs need both --keyring-service and --keyring-account');
  return input.env ? { kind: 'env', env_var: input.env } : { kind: 'keyring', keyring_service: input.keyringService!, keyring_account: input.keyringAccount! };
}

/** The row `input` describes, checked like `auth add`'s flags. */
function rowOfInput(input: AddAuthInput): AuthRefRow {
  validateAlias(input.name, 'auth ref name');
  storedText(input.scheme, '--scheme');
  const secret = secretSourceOf(input);
  if (input.header && !headerName.safeParse(input.header).success)
    throw usageError('invalid_auth_ref', `--header-name "${input.header}" is not a valid header name`);
  const flow = flowOfInput(input);
  return {
    name: input.name,
    kind: secret.kind,
    source: 'local',
    headerName: input.header ?? 'Authorization',
    scheme: input.scheme ?? 'Bearer',
    envVar: secret.kind === 'env' ? secret.env_var : null,
    keyringService: secret.kind === 'keyring' ? secret.keyring_service : null,
    keyringAccount: secret.kind === 'keyring' ? secret.keyring_account : null,
    flow,
  };
}

export async function addAuth(core: Core, input: AddAuthInput): Promise<AuthRefView> {
  const row = rowOfInput(input);
  const storage = await core.storage();
  await storage.transaction(async (tx) => {
    const existing = await tx.authRefs.get(input.name);
    if (existing?.source === 'config_seed') throw configError('read_only_auth_ref', `auth ref "${input.name}" comes from the config file`);
    if (existing) throw usageError('duplicate_auth_ref', `auth ref "${input.name}" already exists`);
    await tx.authRefs.upsert(row);
    await tx.journal.append({ type: 'missive.auth_ref.added', payload: { name: row.name, kind: row.kind, flow: row.flow.type } });
  });
  // Added on this host: its secret is this host's env var or keyring entry (on a shared store, recorded here only).
  recordBinding(core, row);
  return view(core, row, (await core.secrets.available()).ok);
}

/**
 * Replaces a local auth ref's settings (where the secret lives, its flow) under the same name: the agents using it
 * follow. A stored secret stays where it is; cached OAuth2 tokens of the old settings are not reused by another flow.
 */
export async function updateAuth(core: Core, input: AddAuthInput): Promise<AuthRefView> {
  const existing = await requireRef(core, input.name);
  if (existing.source === 'config_seed')
    throw configError(
      'read_only_auth_ref',
      `auth ref "${input.name}" comes from the config file and cannot be changed here`,
      `Edit [auth_refs.${input.name}] in the config file instead.`,
    );
  const row = rowOfInput(input);
  const storage = await core.storage();
  await storage.transaction(async (tx) => {
    await tx.authRefs.upsert(row);
    await tx.journal.append({
      type: 'missive.auth_ref.updated',
      payload: { name: row.name, kind: row.kind, flow: row.flow.type, previous_flow: existing.flow.type },
    });
  });
  recordBinding(core, row);
  return view(core, row, (await core.secrets.available()).ok);
}

export async function requireRef(core: Core, name: string): Promise<AuthRefRow> {
  const ref = await (await core.storage()).authRefs.get(name);
  if (!ref) throw usageError('unknown_auth_ref', `no auth ref named "${name}"`, 'List them with: missive auth list');
  return ref;
}

export async function removeAuth(core: Core, name: string) {
  const ref = await requireRef(core, name);
  if (ref.source === 'config_seed') throw configError('read_only_auth_ref', `auth ref "${name}" comes from the config file and cannot be removed here`);
  const storage = await core.storage();
  // The agents that used it keep working without credentials (the store unlinks them): the journal says which.
  const unlinked = await storage.transaction(async (tx) => {
    const agents = (await tx.agents.aliasesByAuthRef()).get(name) ?? [];
    await tx.authRefs.remove(name);
    await tx.journal.append({ type: 'missive.auth_ref.removed', payload: { name, unlinked_agents: agents } });
    return agents;
  });
  return { name, removed: true as const, unlinked_agents: unlinked };
}

async function requireKeyringRef(core: Core, name: string): Promise<AuthRefRow> {
  // On a shared store, the keyring entry this host bound (never one a shared row names).
  const ref = boundRef(core, await requireRef(core, name));
  if (ref.kind !== 'keyring')
    throw usageError('not_keyring_ref', `auth ref "${name}" reads ${ref.envVar} from the environment; only keyring refs hold stored secrets`);
  const available = await core.secrets.available();
  if (!available.ok) throw authError('keyring_unavailable', `the OS keyring is unavailable: ${available.reason}`, KEYRING_FALLBACK_HELP);
  return ref;
}

/**
 * The keyring entry of the PostgreSQL store's own `[store] password_ref` when `name` is it: declared in the config (never
 * in the store), and needed to open the store, so set-secret must reach it without opening the store first.
 */
async function storePasswordKeyring(core: Core, name: string): Promise<{ keyringService: string; keyringAccount: string } | undefined> {
  if (core.storeSelection.kind !== 'postgres' || core.storeSelection.passwordRef !== name) return undefined;
  const ref = core.config.authRefs[name];
  if (!ref) return undefined;
  if (ref.kind !== 'keyring')
    throw usageError('not_keyring_ref', `auth ref "${name}" reads ${ref.env} from the environment; only keyring refs hold stored secrets`);
  const available = await core.secrets.available();
  if (!available.ok) throw authError('keyring_unavailable', `the OS keyring is unavailable: ${available.reason}`, KEYRING_FALLBACK_HELP);
  return { keyringService: ref.keyring_service!, keyringAccount: ref.keyring_account! };
}

/**
 * Stores the secret of keyring auth ref `name` and journals that it did. The PostgreSQL store's own password ref is the
 * exception: its entry is set without opening the store (which needs that very password) and nothing is journaled.
 */
export async function setSecret(core: Core, name: string, secret: string) {
  const value = secret.replace(/\r?\n$/, '');
  if (!value) throw usageError('empty_secret', 'the secret is empty');
  refuseControlCharacters(
    value,
    `the secret given for auth ref "${name}"`,
    `Give the secret on one line on stdin (one trailing newline is fine), e.g.: printf %s "$SECRET" | missive auth set-secret ${name}`,
  );
  const storePassword = await storePasswordKeyring(core, name);
  const ref = storePassword ?? (await requireKeyringRef(core, name));
  core.rememberSecrets([value]);
  await core.secrets.set(ref.keyringService!, ref.keyringAccount!, value);
  const persistence = await secretPersistence(core.secrets);
  if (!storePassword)
    await (await core.storage()).journal.append({ type: 'missive.auth_ref.secret_set', payload: { name, session_only: !persistence.persistent } }, [value]);
  return { name, stored: true, keyring_service: ref.keyringService, keyring_account: ref.keyringAccount, session_only: !persistence.persistent };
}

export async function deleteSecret(core: Core, name: string) {
  const ref = await requireKeyringRef(core, name);
  const deleted = await core.secrets.delete(ref.keyringService!, ref.keyringAccount!);
  await (await core.storage()).journal.append({ type: 'missive.auth_ref.secret_deleted', payload: { name, deleted } });
  return { name, deleted };
}

/**
 * `auth bind` (a shared store only): on this host, the auth ref `name` takes its secret from `secret` (an env var or a
 * keyring entry of this user), with the ref's shared settings (header, scheme, flow) as they are now. Until a ref is
 * bound on a host, no secret is read for it there; when its shared settings change, it must be bound again.
 */
export async function bindAuth(core: Core, name: string, secret: SecretBindingInput): Promise<AuthRefView> {
  requireSharedStore(core, 'auth bind');
  const stored = await requireRef(core, name);
  const source = secretSourceOf(secret);
  recordBinding(core, stored, source);
  await (await core.storage()).journal.append({ type: 'missive.auth_ref.bound', payload: { name, kind: source.kind, flow: stored.flow.type } });
  return view(core, stored, (await core.secrets.available()).ok);
}
