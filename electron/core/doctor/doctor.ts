/** `doctor`: config source, profile, state paths, schema, keyring and per-agent card reachability. Mutates nothing. */
import { existsSync } from 'node:fs';
import { toMissiveError } from '../../../shared/errors.js';
import type { Core } from '../context.js';
import { openDatabase, appliedMigrations, SCHEMA_VERSION } from '../store/db.js';
import { listAgents, type AgentRow } from '../store/repos/agents.js';
import { getAuthRef } from '../store/repos/auth-refs.js';
import { resolveAuthHeaders } from '../auth/resolve.js';
import { serviceParameterHeaders } from '../a2a/service-params.js';
import { assertOk } from '../a2a/http.js';
import { requestCard } from '../agents/discovery.js';
import { cardUrl, parseCard, parseCardText } from '../a2a/card.js';
import { VERSION } from '../version.js';

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

export async function runDoctor(core: Core): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  const { config, paths } = core;
  checks.push({ name: 'binary.version', status: 'ok', message: `missive ${VERSION} on Node ${process.versions.node}` });
  checks.push({
    name: 'config.discovery_validation',
    status: 'ok',
    message: config.source.path ? `${config.source.kind}: ${config.source.path}` : 'built-in defaults (no config file found)',
    details: { source: config.source.kind, path: config.source.path ?? null, searched: config.source.searched, profiles: config.profiles },
  });
  checks.push({ name: 'state.paths', status: 'ok', message: `${paths.root}: ${paths.state}`, details: { ...paths } });

  let agents: AgentRow[] = [];
  let authLookup: (name: string) => ReturnType<typeof getAuthRef> = () => undefined;
  let db: ReturnType<typeof openDatabase> | undefined;
  if (!existsSync(paths.database)) {
    checks.push({ name: 'store.sqlite_migrations', status: 'warn', message: `no database yet at ${paths.database}; it is created on first use`, details: { schema_version: 0, expected: SCHEMA_VERSION } });
  } else {
    try {
      db = openDatabase(paths.database, { readonly: true });
      const applied = appliedMigrations(db);
      const current = applied.at(-1)?.version ?? 0;
      checks.push({
        name: 'store.sqlite_migrations',
        status: current === SCHEMA_VERSION ? 'ok' : 'warn',
        message: current === SCHEMA_VERSION ? `schema v${current} at ${paths.database}` : `schema v${current}; v${SCHEMA_VERSION} is applied on next use`,
        details: { schema_version: current, expected: SCHEMA_VERSION, migrations: applied },
      });
      agents = listAgents(db);
      authLookup = (name) => getAuthRef(db!, name);
    } catch (error) {
      const err = toMissiveError(error);
      checks.push({ name: 'store.sqlite_migrations', status: 'fail', message: err.message, exit_code: err.exitCode });
    }
  }

  const keyring = await core.secrets.available();
  checks.push({
    name: 'auth.keyring',
    status: keyring.ok ? 'ok' : 'warn',
    message: keyring.ok ? `${core.secrets.backend} available` : `unavailable: ${keyring.reason}; env-var auth refs still work`,
  });

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
  const probes = await Promise.all(targets.map((agent) => probeAgent(core, agent, authLookup)));
  checks.push(...probes);
  db?.close();

  const firstFail = checks.find((c) => c.status === 'fail');
  return { ok: !firstFail, exit_code: firstFail?.exit_code ?? 0, profile: config.profile, checks };
}

type ProbeTarget = Pick<AgentRow, 'alias' | 'baseUrl' | 'authRefName' | 'card'> & Partial<Pick<AgentRow, 'clientTls'>>;

async function probeAgent(
  core: Core,
  agent: ProbeTarget,
  authLookup: (name: string) => ReturnType<typeof getAuthRef>,
): Promise<DoctorCheck> {
  const name = `a2a.endpoint.${agent.alias}`;
  let url = cardUrl(agent.baseUrl);
  try {
    const auth = await resolveAuthHeaders({
      authRef: agent.authRefName ? (authLookup(agent.authRefName) ?? null) : null,
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
