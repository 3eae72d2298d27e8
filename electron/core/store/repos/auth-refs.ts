/** Auth references: where a secret lives (env var name or keyring coordinates), never the secret itself. */
import type { Db } from '../db.js';
import { nowIso } from '../db.js';
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

export function upsertAuthRef(db: Db, ref: AuthRefRow): void {
  db.prepare(
    `INSERT INTO auth_refs (name, kind, source, header_name, scheme, env_var, keyring_service, keyring_account, flow_json)
     VALUES (@name, @kind, @source, @headerName, @scheme, @envVar, @keyringService, @keyringAccount, @flowJson)
     ON CONFLICT(name) DO UPDATE SET kind = excluded.kind, source = excluded.source, header_name = excluded.header_name,
       scheme = excluded.scheme, env_var = excluded.env_var, keyring_service = excluded.keyring_service,
       keyring_account = excluded.keyring_account, flow_json = excluded.flow_json, updated_at = @now`,
  ).run({ name: ref.name, kind: ref.kind, source: ref.source, headerName: ref.headerName, scheme: ref.scheme, envVar: ref.envVar, keyringService: ref.keyringService, keyringAccount: ref.keyringAccount, flowJson: JSON.stringify(ref.flow), now: nowIso() });
}

export function getAuthRef(db: Db, name: string): AuthRefRow | undefined {
  const raw = db.prepare(`SELECT * FROM auth_refs WHERE name = ?`).get(name) as RawAuthRef | undefined;
  return raw && fromRaw(raw);
}

export function listAuthRefs(db: Db): AuthRefRow[] {
  return (db.prepare(`SELECT * FROM auth_refs ORDER BY name`).all() as RawAuthRef[]).map(fromRaw);
}

export function deleteAuthRef(db: Db, name: string): boolean {
  return db.prepare(`DELETE FROM auth_refs WHERE name = ?`).run(name).changes > 0;
}
