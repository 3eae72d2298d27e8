/**
 * Registration's check of the card's security (`agent add` with a card, the window's Register): an agent registered
 * with no credentials whose card requires a security scheme is registered, and a warning names the scheme and how to
 * add credentials for it (the window adds a one-click button beside its own copy of it, in the inspect panel).
 */
import type { Core } from '../handle.js';
import type { AgentRow } from '../store/rows/agents.js';
import { securitySchemesOf } from '../a2a/security-schemes.js';
import { authNeededWarning } from '../../../shared/auth-needed.js';
import { credentialOffers } from './inspect-security.js';

/** Warns (stderr in the CLI, a notice in the window) when `rawCard` requires credentials and `agent` sends none. */
export async function warnIfAuthNeeded(core: Core, agent: AgentRow, rawCard: unknown): Promise<void> {
  const warning = authNeededWarning(agent.alias, securitySchemesOf(rawCard));
  if (!warning || (await credentialOffers(core, agent)).length > 0) return;
  core.warn(`${warning}. Add an auth ref for it and bind it: missive auth add <name> …, then missive agent set ${agent.alias} --auth-ref <name>`);
}
