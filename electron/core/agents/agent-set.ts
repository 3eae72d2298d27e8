/**
 * `agent set` as one call (the desktop app's Edit): the auth ref (null: none), the mutual TLS files (null: removed)
 * and the card-signing keys (null: removed); what is not given stays. Relative paths resolve against `baseDir`.
 */
import type { Core } from '../handle.js';
import { usageError } from '../../../shared/errors.js';
import type { ClientTlsInput } from './client-tls-paths.js';
import { setAgentAuthRef, setAgentCardKeys, setAgentClientTls, showAgent, type AgentView, type CardKeysInput } from './registry.js';

export interface AgentChanges {
  authRef?: string | null;
  clientTls?: ClientTlsInput | null;
  cardKeys?: Omit<CardKeysInput, 'baseDir'> | null;
}

export async function setAgent(core: Core, alias: string, changes: AgentChanges, baseDir: string): Promise<AgentView> {
  const { authRef, clientTls, cardKeys } = changes;
  if (authRef === undefined && clientTls === undefined && cardKeys === undefined) {
    throw usageError('nothing_to_set', `nothing to set on agent "${alias}"`, 'Change its auth ref, its client certificate files or its card-signing keys.');
  }
  let view = await showAgent(core, alias);
  if (authRef !== undefined && authRef !== view.auth_ref) view = await setAgentAuthRef(core, alias, authRef);
  if (cardKeys !== undefined) view = await setAgentCardKeys(core, alias, cardKeys && { ...cardKeys, baseDir });
  if (clientTls !== undefined) view = await setAgentClientTls(core, alias, clientTls ? { clientTls: { ...clientTls, baseDir } } : { clear: true });
  return view;
}
