/**
 * Agent health from what missive already knows — the card cache and the journal's last calls — and "refresh all":
 * every agent's card fetched again, at most 4 at once, one failure never stopping the others. Every card fetch
 * journals its outcome (discovery.ts: fetched, not modified, or `a2a.agent_card.failed`), so health shows it at once.
 * Both run on either store (storage.ts: the registry, and each agent's newest call events).
 */
import pLimit from 'p-limit';
import type { Core } from '../handle.js';
import type { AgentHealth } from '../../../shared/ipc/contract.js';
import { toMissiveError } from '../../../shared/errors.js';
import type { CallEventType, JournalRow } from '../store/rows/history.js';
import { redactValue } from '../security/redact.js';
import { cachedSelection, refreshAgent } from './discovery.js';

/** Calls that reached the agent and worked. */
const OK_TYPES: CallEventType[] = ['a2a.send.completed', 'a2a.stream.completed', 'a2a.agent_card.fetched', 'a2a.agent_card.not_modified'];
/** Calls that failed. */
const FAILED_TYPES: CallEventType[] = ['a2a.send.failed', 'a2a.stream.failed', 'a2a.agent_card.failed'];

/** How many card fetches "refresh all" runs at once. */
export const REFRESH_CONCURRENCY = 4;

/** The newest of `rows` (one agent's newest event of each type) whose type is one of `types`. */
function newest(rows: readonly JournalRow[], types: readonly CallEventType[]): JournalRow | undefined {
  let best: JournalRow | undefined;
  for (const row of rows) {
    if ((types as readonly string[]).includes(row.type) && (!best || row.sequence > best.sequence)) best = row;
  }
  return best;
}

/** A failure event's error: `{code, message, category}` (a bare string in older journals). */
function failureOf(event: JournalRow): { code: string; message: string; category: string | null } {
  const error = event.payload.error;
  if (typeof error === 'string') return { code: 'missive::protocol::invalid_send_response', message: error, category: 'protocol' };
  const report = (error ?? {}) as { code?: unknown; message?: unknown; category?: unknown };
  return {
    code: typeof report.code === 'string' ? report.code : 'missive::internal::unknown',
    message: typeof report.message === 'string' ? report.message : 'the call failed',
    category: typeof report.category === 'string' ? report.category : null,
  };
}

/**
 * Each registered agent's health. `reachable`: null when the journal has no call to it; false when the last call
 * failed with a transport error (refused, timed out, reset, an HTTP error status); true when it worked, or failed
 * with an error of another category (auth, protocol, remote: the agent answered, just not with success).
 */
export async function agentsHealth(core: Core): Promise<AgentHealth[]> {
  const storage = await core.storage();
  const agents = await storage.agents.list();
  // Each agent's newest event of each type: one index seek per (agent, type) pair.
  const calls = new Map<string, JournalRow[]>();
  for (const row of await storage.callEvents.newest(
    agents.map((a) => a.alias),
    [...OK_TYPES, ...FAILED_TYPES],
  )) {
    const mine = calls.get(row.agentAlias!) ?? [];
    mine.push(row);
    calls.set(row.agentAlias!, mine);
  }
  return agents.map((agent) => {
    const rows = calls.get(agent.alias) ?? [];
    const ok = newest(rows, OK_TYPES);
    const failed = newest(rows, FAILED_TYPES);
    const failure = failed ? failureOf(failed) : null;
    const last = !ok ? failed : !failed ? ok : ok.sequence > failed.sequence ? ok : failed;
    const reachable = !last ? null : last === ok ? true : failure?.category !== 'transport';
    // A card fetch that worked says nothing of the calls: with no interface missive can call, every call fails.
    const interfaceProblem = agent.card && !agent.unreadableCard ? (cachedSelection(core, agent).interface_error?.message ?? null) : null;
    return redactValue({
      alias: agent.alias,
      card_fetched_at: agent.card?.fetchedAt ?? null,
      card_validated_at: agent.card?.validatedAt ?? null,
      last_ok_at: ok?.timestamp ?? null,
      last_error: failed && failure ? { code: failure.code, message: failure.message, at: failed.timestamp } : null,
      reachable,
      interface_problem: interfaceProblem,
    });
  });
}

export interface RefreshOutcome {
  alias: string;
  ok: boolean;
  latency_ms: number;
  /** The card fetch's result (`fetched` or `not_modified`) when it worked. */
  status: string | null;
  error: { code: string; message: string } | null;
}

/** Refreshes one agent's card; a failure is reported, never thrown. */
async function refreshOne(core: Core, alias: string): Promise<RefreshOutcome> {
  const started = performance.now();
  try {
    const refreshed = await refreshAgent(core, alias);
    return { alias, ok: true, latency_ms: Math.round(performance.now() - started), status: refreshed.status, error: null };
  } catch (error) {
    // fetchCard has journaled the failure (a2a.agent_card.failed), so health shows it.
    const report = toMissiveError(error).toReport();
    return { alias, ok: false, latency_ms: Math.round(performance.now() - started), status: null, error: { code: report.code, message: report.message } };
  }
}

/** Refreshes every registered agent's card, at most REFRESH_CONCURRENCY at once, in registry order. */
export async function refreshAllAgents(core: Core): Promise<{ agents: RefreshOutcome[] }> {
  const limit = pLimit(REFRESH_CONCURRENCY);
  const aliases = (await (await core.storage()).agents.list()).map((a) => a.alias);
  const agents = await Promise.all(aliases.map((alias) => limit(() => refreshOne(core, alias))));
  return redactValue({ agents });
}
