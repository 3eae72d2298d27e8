/**
 * A job keeps its request in `gateway_jobs` until the gateway runs it, so a message that holds a credential would put
 * that credential in the store. `refuseCredentials` checks the request's text against the literal credentials it could
 * hold, read locally (environment and keyring, never the network): the secret of the auth ref of every agent the job
 * sends to (the agent, a bcast group's members, a reducer agent), this invocation's `--header` / `--bearer-token-env`
 * values, and every credential this process already sent. A match is a usage error and nothing is recorded.
 */
import { usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { parseHeaderFlag, refSecret } from '../auth/resolve.js';
import { localBindings } from '../auth/host-trust.js';
import { requireGroup } from '../collectives/groups.js';
import { storedRequest, type JobInput, type JobRequest } from './requests.js';
import { recordJob, type JobView, type StartJobOptions } from './queue.js';

/** The agents a job's request reaches. */
async function aliasesOf(core: Core, request: JobRequest): Promise<string[]> {
  switch (request.kind) {
    case 'send':
    case 'stream':
      return [request.input.agent];
    case 'bcast':
      return (await requireGroup(core, request.group)).members.map((m) => m.agent_alias);
    case 'reduce':
      return request.input.reducerAgent ? [request.input.reducerAgent] : [];
    case 'wait':
      return [];
  }
}

/** Literal credentials that must not be in the request, each with where it comes from (for the message). */
async function credentialsFor(core: Core, request: JobRequest): Promise<Array<{ value: string; source: string }>> {
  const found: Array<{ value: string; source: string }> = [];
  const storage = await core.storage();
  const bindingOf = localBindings(core);
  for (const alias of new Set(await aliasesOf(core, request))) {
    const refName = (await storage.agents.get(alias))?.authRefName;
    const ref = refName ? await storage.authRefs.get(refName) : undefined;
    // The secret this host would send (on a shared store, from its own binding; a ref not bound here has none).
    const local = ref ? bindingOf(ref) : undefined;
    const secret = local?.bound ? await refSecret(local.ref, core.env, core.secrets, true).catch(() => null) : null;
    if (secret) found.push({ value: secret, source: `the auth ref "${ref!.name}" of agent "${alias}"` });
  }
  for (const header of core.options.headers ?? []) {
    const value = parseHeaderFlag(header)[1];
    found.push({ value, source: '--header' }, { value: value.replace(/^\S+\s+/, ''), source: '--header' });
  }
  const bearer = core.options.bearerTokenEnv ? core.env[core.options.bearerTokenEnv] : undefined;
  if (bearer) found.push({ value: bearer, source: '--bearer-token-env' });
  for (const value of core.knownSecrets()) found.push({ value, source: 'a credential this command sent' });
  return found.filter((c) => c.value.length >= 4);
}

/** Throws `validation::credential_in_job` when the request's text holds one of the credentials it could hold. */
export async function refuseCredentials(core: Core, request: JobRequest): Promise<void> {
  refuseAmong(request, await credentialsFor(core, request));
}

/**
 * `refuseCredentials` for the many requests of one invocation (`job start --from-file`): the credentials of each
 * target (an agent, a group) are read once, however many requests go to it.
 */
export async function credentialsCheck(core: Core): Promise<(request: JobRequest) => Promise<void>> {
  const known = new Map<string, Promise<Array<{ value: string; source: string }>>>();
  return async (request) => {
    const key = request.kind === 'bcast' ? `group:${request.group}` : `agents:${(await aliasesOf(core, request)).join(',')}`;
    let found = known.get(key);
    if (!found) known.set(key, (found = credentialsFor(core, request)));
    refuseAmong(request, await found);
  };
}

function refuseAmong(request: JobRequest, credentials: Array<{ value: string; source: string }>): void {
  const text = JSON.stringify(request);
  const hit = credentials.find((c) => text.includes(c.value));
  if (!hit) return;
  throw usageError(
    'credential_in_job',
    `the job's message holds the credential of ${hit.source}; a job keeps its request in the store until the gateway runs it, and a credential never goes there`,
    'Take the credential out of the message, or send it now with `missive send` (the agent gets it; the journal keeps it redacted).',
  );
}

/**
 * What `missive job start` (and a fan-out `--via-jobs`) calls: the local inputs captured here (requests.ts), the
 * captured request checked for credentials, then recorded.
 */
export async function startCheckedJob(core: Core, input: JobInput, options: StartJobOptions = {}): Promise<JobView> {
  const request = storedRequest(core, input);
  await refuseCredentials(core, request);
  return recordJob(core, request, options);
}
