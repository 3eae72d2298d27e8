/**
 * An agent row that is not (yet) in the store: a URL asked for its card before or without registration, a card read
 * from a file, the agent being registered while its card is fetched. Everything not given is empty.
 */
import type { AgentRow } from '../store/rows/agents.js';

export const unstoredAgentRow = (fields: Pick<AgentRow, 'alias' | 'baseUrl'> & Partial<AgentRow>): AgentRow => ({
  source: 'discovered',
  interfaceUrls: {},
  bindingPreference: [],
  authRefName: null,
  tags: [],
  notes: null,
  metadata: {},
  trustedOrigins: [],
  allowCrossOriginAuth: false,
  clientTls: null,
  cardKeys: null,
  card: null,
  readOnly: false,
  createdAt: '',
  updatedAt: '',
  ...fields,
});
