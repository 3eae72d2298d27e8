/**
 * `doctor`: config source, profile, state paths, schema, keyring and per-agent card reachability. Mutates nothing.
 * A config that does not load is a failing check (`runDoctorWithoutConfig`), not an abort: the other checks still run.
 */
import { toMissiveError, type MissiveError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { discoverConfig, type DiscoveryInput } from '../config/discover.js';
import { ConfigFileError, DEFAULT_PROFILE } from '../config/load.js';
import { statePaths, type StatePaths } from '../config/paths.js';
import type { SecretStore } from '../auth/secret-store.js';
import { inspectSqlite, inspectStore } from '../store/inspect.js';
import type { AgentRow } from '../store/rows/agents.js';
import type { AuthRefRow } from '../store/rows/auth-refs.js';
import { resolveAuthHeaders } from '../auth/resolve.js';
import { assertConfirmedAgent, boundRef } from '../auth/host-trust.js';
import { everyCredentialSource } from '../agents/outbound.js';
import { serviceParameterHeaders } from '../a2a/service-params.js';
import { assertOk } from '../a2a/http.js';
import { requestCard } from '../agents/discovery.js';
import { cardUrl, parseCard, parseCardText } from '../a2a/card.js';
import { VERSION } from '../version.js';
import { STORE_URL_ENV } from '../store/selection.js';
import { serviceStoreCheck, type ServiceCheckOptions } from '../service/store-check.js';
import { codeCacheCheck } from './code-cache-check.js';

export interface DoctorCheck {
  name: string;
  status: 'ok' | 'warn' | 'fail' | 'skip';
  message: string;
  exit_code?: number;
  details?: Record<string, unknown>;
}

export interface DoctorReport {
  ok: boolean;
  exit_code: number;
  profile: string;
  checks: DoctorCheck[];
}

const mask = (name: string | null) => (name ? `${name.slice(0, 2)}***` : null);

const versionCheck = (): DoctorCheck => ({ name: 'binary.version', status: 'ok', message: `missive ${VERSION} on Node ${process.versions.node}` });
const pathsCheck = (paths: StatePaths): DoctorCheck => ({ name: 'state.paths', status: 'ok', message: `${paths.root}: ${paths.state}`, details: { ...paths } });

async function keyringCheck(secrets: SecretStore): Promise<DoctorCheck> {
  const keyring = await secrets.available();
  return {
    name: 'auth.keyring',
    status: keyring.ok ? 'ok' : 'warn',
    message: keyring.ok ? `${secrets.backend} available` : `unavailable: ${keyring.reason}; env-var auth refs still work`,
  };
}

function report(profile: string, checks: DoctorCheck[]): DoctorReport {
  const firstFail = checks.find((c) => c.status === 'fail');
  return { ok: !firstFail, exit_code: firstFail?.exit_code ?? 0, profile, checks };
}

export async function runDoctor(core: Core, options: { service?: ServiceCheckOptions } = {}): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  const { config, paths } = core;
  checks.push(versionCheck());
  checks.push({
    name: 'config.discovery_validation',
    status: 'ok',
    message: config.source.path ? `${config.source.kind}: ${config.source.path}` : 'built-in defaults (no config file found)',
    details: { source: config.source.kind, path: config.source.path ?? null, searched: config.source.searched, profiles: config.profiles },
  });
  checks.push(pathsCheck(paths));

  // The store as it is: nothing is created or migrated (store/inspect.ts).
  const { check, contents } = await inspectStore(core.storeSelection, {
    sqlitePath: paths.database,
    postgres: { env: core.env, secrets: core.secrets, config: core.config, remember: (values) => core.rememberSecrets(values) },
  });
  checks.push(check);
  // Which store the installed gateway service uses, and whether it is this one.
  checks.push(serviceStoreCheck(core, options.service));
  const { agents, authRefs } = contents;
  checks.push(await keyringCheck(core.secrets));
  checks.push(codeCacheCheck(core.env));

  const known = new Set(agents.map((a) => a.alias));
  const seeded = Object.entries(config.agents)
    .filter(([alias]) => !known.has(alias))
    .map(([alias, a]): ProbeTarget => ({ alias, baseUrl: a.base_url, authRefName: a.auth_ref ?? null, card: null }));
  const targets = [...agents, ...seeded];
  checks.push({
    name: 'a2a.service_parameters',
    status: 'ok',
    message: `A2A-Version ${core.serviceParameters.version}${core.serviceParameters.extensions.length ? `, extensions ${core.serviceParameters.extensions.join(',')}` : ''}`,
  });
  const probes = await Promise.all(targets.map((agent) => probeAgent(core, agent, (name) => authRefs.get(name), known.has(agent.alias))));
  checks.push(...probes);
  return report(config.profile, checks);
}

export interface BrokenConfigInput extends DiscoveryInput {
  /** What loading the config threw. */
  error: MissiveError;
  profileFlag?: string;
  secrets: SecretStore;
  /** `--store URL`, if given: with it (or MISSIVE_STORE_URL) the store is PostgreSQL's, not checked without a config. */
  storeFlag?: string;
}

/**
 * The report when the config does not load: `config.discovery_validation` fails with the error (its code, file and
 * line), the checks that need no config still run (state paths of the `--profile` or default profile, the store, the
 * keyring) and the agents are skipped. The exit code is the config error's (78).
 */
export async function runDoctorWithoutConfig(input: BrokenConfigInput): Promise<DoctorReport> {
  const { error } = input;
  let source: ReturnType<typeof discoverConfig> | undefined;
  try {
    source = discoverConfig(input);
  } catch {
    source = undefined;
  }
  const located = error instanceof ConfigFileError ? error : undefined;
  const line = located?.line;
  const path = located?.file ?? source?.path ?? null;
  const profile = input.profileFlag ?? DEFAULT_PROFILE;
  const paths = statePaths(profile, input.env, input.cwd);
  const checks: DoctorCheck[] = [
    versionCheck(),
    {
      name: 'config.discovery_validation',
      status: 'fail',
      message: error.message,
      exit_code: error.exitCode,
      details: {
        code: error.code,
        source: source?.kind ?? (input.configFlag ? 'flag' : 'env'),
        path,
        line: line ?? null,
        column: located?.column ?? null,
        searched: source?.searched ?? [],
        help: error.help ?? null,
      },
    },
    pathsCheck(paths),
    input.storeFlag || input.env[STORE_URL_ENV]
      ? { name: 'store.postgres', status: 'skip', message: 'the PostgreSQL store is not checked until the config loads' }
      : (await inspectSqlite(paths.database)).check,
    await keyringCheck(input.secrets),
    codeCacheCheck(input.env),
    { name: 'a2a.endpoints', status: 'skip', message: 'agents are not checked until the config loads' },
  ];
  return report(profile, checks);
}

type ProbeTarget = Pick<AgentRow, 'alias' | 'baseUrl' | 'authRefName' | 'card'> & Partial<Pick<AgentRow, 'clientTls'>>;

async function probeAgent(core: Core, agent: ProbeTarget, authLookup: (name: string) => AuthRefRow | undefined, fromStore: boolean): Promise<DoctorCheck> {
  const name = `a2a.endpoint.${agent.alias}`;
  let url = cardUrl(agent.baseUrl);
  try {
    const stored = agent.authRefName ? (authLookup(agent.authRefName) ?? null) : null;
    // A shared store's agent is probed with credentials only as this host confirmed it, its ref as bound here.
    if (fromStore) assertConfirmedAgent(core, { trustedOrigins: [], ...agent }, everyCredentialSource(core, agent));
    const auth = await resolveAuthHeaders({
      authRef: stored && (fromStore ? boundRef(core, stored) : stored),
      bearerTokenEnv: core.options.bearerTokenEnv,
      headers: core.options.headers,
      env: core.env,
      secrets: core.secrets,
      oauth: { profile: core.config.profile, timeoutMs: core.timeoutMs, dispatcher: core.dispatcher },
    });
    const started = Date.now();
    const answer = await requestCard(core, agent.baseUrl, {
      headers: { Accept: 'application/json', ...serviceParameterHeaders(core.serviceParameters), ...auth.toHeaders() },
      query: auth.toQuery(),
      secrets: auth.secrets(),
      knownUrl: agent.card?.url ?? null,
      clientTls: agent.clientTls ? { alias: agent.alias, clientTls: agent.clientTls } : undefined,
      timeoutMs: Math.min(core.timeoutMs, core.config.qos.connectTimeoutMs),
    });
    const res = answer.res;
    url = answer.url;
    assertOk(res, 'Agent Card request', url, core.serviceParameters.version);
    const card = parseCard(parseCardText(res.body, url), url);
    return {
      name,
      status: 'ok',
      message: `${card.wire.name} reachable in ${Date.now() - started} ms`,
      details: { url, auth_ref: mask(agent.authRefName), interfaces: card.wire.supportedInterfaces.length, card_format: card.format },
    };
  } catch (error) {
    const err = toMissiveError(error);
    return { name, status: 'fail', message: err.message, exit_code: err.exitCode, details: { url, code: err.code, auth_ref: mask(agent.authRefName) } };
  }
}
