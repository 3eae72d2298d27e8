/**
 * `agent trust <alias>` (a shared store only): this host confirms that the agent's credentials may go to its origins
 * (base URL and trusted origins) with its auth ref, as the shared row says now. Until then, and after any change of
 * those by someone else, no credential of this host goes to the agent (auth/host-trust.ts).
 */
import type { Core } from '../handle.js';
import { confirmationOf, recordConfirmation, requireSharedStore } from '../auth/host-trust.js';
import type { AgentConfirmation } from '../auth/host-ledger.js';
import { requireAgent } from './views.js';

export interface AgentTrustView {
  alias: string;
  /** The origins its credentials may now go to from this host. */
  origins: string[];
  auth_ref: string | null;
  /** What this host had confirmed before (null: nothing). */
  previous: Omit<AgentConfirmation, 'confirmed_at'> | null;
}

export async function trustAgent(core: Core, alias: string): Promise<AgentTrustView> {
  requireSharedStore(core, 'agent trust');
  const row = await requireAgent(core, alias);
  const before = confirmationOf(core, alias);
  const now = recordConfirmation(core, row)!;
  await (
    await core.storage()
  ).journal.append({ type: 'missive.agent.trusted', agentAlias: alias, payload: { alias, origins: now.origins, auth_ref: now.auth_ref } });
  return { alias, origins: now.origins, auth_ref: now.auth_ref, previous: before && { origins: before.origins, auth_ref: before.auth_ref } };
}
