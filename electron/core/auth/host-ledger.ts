/**
 * What this host decided about a shared store, kept on this host only: `<state>/host-trust.json` (0600 in the 0700
 * state directory of the profile), never in the store everyone can write. Per store (server, database and schema):
 *   - `auth_refs`: where each auth ref's secret comes from on this host (an env var or a keyring entry of this user),
 *     and the ref's shared settings (header, scheme, flow: token endpoints, key names) as they were when it was bound;
 *   - `agents`: the origins this host confirmed for each agent's credentials, and the auth ref it confirmed with them.
 * The file is read on every check (a running gateway sees `agent trust` at once) and written whole through a temp file
 * and a rename, so a reader never sees half of it. Two processes writing at the same moment may lose one of the two
 * decisions; the lost one then fails closed (the next credentialed call asks for it again).
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { configError } from '../../../shared/errors.js';
import type { AuthFlow } from '../config/auth-flow.js';
import { ensureStateDir, PRIVATE_FILE_MODE } from '../security/private-files.js';

export const HOST_TRUST_FILE = 'host-trust.json';

/** The shared settings of an auth ref that decide what its secret becomes and where an OAuth2 flow sends it. */
export interface RefSettings {
  header: string;
  scheme: string;
  flow: AuthFlow;
}

export type SecretBinding = { kind: 'env'; env_var: string } | { kind: 'keyring'; keyring_service: string; keyring_account: string };

export type RefBinding = SecretBinding & { settings: RefSettings; bound_at: string };

export interface AgentConfirmation {
  /** Origins (`https://host:443`) this host lets the agent's credentials go to. */
  origins: string[];
  /** The auth ref confirmed with them (null: the agent had none). */
  auth_ref: string | null;
  confirmed_at: string;
}

export interface StoreDecisions {
  auth_refs: Record<string, RefBinding>;
  agents: Record<string, AgentConfirmation>;
}

interface LedgerFile {
  version: 1;
  stores: Record<string, StoreDecisions>;
}

function ledgerSchema() {
  const binding = z.union([
    z.strictObject({ kind: z.literal('env'), env_var: z.string().min(1), settings: z.unknown(), bound_at: z.string() }),
    z.strictObject({
      kind: z.literal('keyring'),
      keyring_service: z.string().min(1),
      keyring_account: z.string().min(1),
      settings: z.unknown(),
      bound_at: z.string(),
    }),
  ]);
  const agent = z.strictObject({ origins: z.array(z.string()), auth_ref: z.string().nullable(), confirmed_at: z.string() });
  return z.strictObject({
    version: z.literal(1),
    stores: z.record(z.string(), z.strictObject({ auth_refs: z.record(z.string(), binding), agents: z.record(z.string(), agent) })),
  });
}

let schema: ReturnType<typeof ledgerSchema> | undefined;

const empty = (): StoreDecisions => ({ auth_refs: {}, agents: {} });

export interface HostLedger {
  readonly path: string;
  /** This host's decisions about the store `storeId`. */
  read(storeId: string): StoreDecisions;
  /** Changes the decisions about `storeId` and writes the file (0600). */
  update(storeId: string, change: (decisions: StoreDecisions) => void): void;
}

export function hostLedger(stateDir: string): HostLedger {
  const path = join(stateDir, HOST_TRUST_FILE);
  const load = (): LedgerFile => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, stores: {} };
      throw configError('host_trust_unreadable', `cannot read ${path}: ${(error as Error).message}`);
    }
    let parsed: ReturnType<NonNullable<typeof schema>['safeParse']>;
    try {
      parsed = (schema ??= ledgerSchema()).safeParse(JSON.parse(text));
    } catch {
      parsed = { success: false } as typeof parsed;
    }
    if (!parsed.success) {
      throw configError(
        'host_trust_corrupt',
        `${path} (what this host confirmed about shared stores) is not a file missive wrote; no credential is sent until it is repaired`,
        `Move it away, then confirm again what this host sends: missive auth bind <ref> …, missive agent trust <alias>.`,
      );
    }
    return parsed.data as LedgerFile;
  };
  return {
    path,
    read: (storeId) => load().stores[storeId] ?? empty(),
    update(storeId, change) {
      const file = load();
      const decisions = (file.stores[storeId] ??= empty());
      change(decisions);
      ensureStateDir(stateDir);
      const temp = `${path}.${process.pid}.tmp`;
      try {
        writeFileSync(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
        renameSync(temp, path);
      } catch (error) {
        rmSync(temp, { force: true });
        throw configError('host_trust_unwritable', `cannot write ${path}: ${(error as Error).message}; nothing was confirmed`);
      }
    },
  };
}
