/** Auth ref rows as both engines store them, and their decoder. Neither engine owns this module. */
import { authFlowSchema, HEADER_FLOW, type AuthFlow } from '../../config/auth-flow.js';
import { storedEnum, storedJsonAs, storedRow } from '../stored-json.js';

export interface AuthRefRow {
  name: string;
  kind: 'env' | 'keyring';
  source: 'local' | 'config_seed';
  headerName: string;
  scheme: string;
  envVar: string | null;
  keyringService: string | null;
  keyringAccount: string | null;
  /** The flow and its non-secret settings (`header` for refs made before flows existed). */
  flow: AuthFlow;
}

export interface RawAuthRef {
  name: string;
  kind: 'env' | 'keyring';
  source: 'local' | 'config_seed';
  header_name: string;
  scheme: string;
  env_var: string | null;
  keyring_service: string | null;
  keyring_account: string | null;
  flow_json: string | null;
}

/**
 * A stored auth ref (SQLite's and PostgreSQL's). Its flow is checked as config is (auth-flow.ts): one that does not
 * match, like a kind or source that is none of missive's, is storage::corrupt_row naming the ref. Refs made before
 * flows existed have none: the header flow.
 */
export function fromRaw(r: RawAuthRef): AuthRefRow {
  const at = storedRow('auth_refs', { name: r.name });
  return {
    name: r.name,
    kind: storedEnum(r.kind, ['env', 'keyring'] as const, at, 'kind'),
    source: storedEnum(r.source, ['local', 'config_seed'] as const, at, 'source'),
    headerName: r.header_name,
    scheme: r.scheme,
    envVar: r.env_var,
    keyringService: r.keyring_service,
    keyringAccount: r.keyring_account,
    flow: r.flow_json === null ? HEADER_FLOW : storedJsonAs(r.flow_json, at, 'flow_json', authFlowSchema()),
  };
}
