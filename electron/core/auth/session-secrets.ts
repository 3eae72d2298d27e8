/**
 * The desktop app's secret store: the OS keyring when it answers, else this session's memory. A secret typed into
 * the app without a keyring then works until the app quits (and the app says so: `persistence`), where the CLI
 * refuses it (keyring_unavailable). Secrets are never written anywhere else.
 */
import type { SecretStore } from './secret-store.js';

export interface Persistence {
  /** Whether a stored secret outlives this process. */
  persistent: boolean;
  /** Why not, in words for the operator; null when it does. */
  reason: string | null;
}

export interface SessionSecretStore extends SecretStore {
  persistence(): Promise<Persistence>;
}

/** Whether secrets set through `store` outlive the process: the keyring's do, memory's do not. */
export async function secretPersistence(store: SecretStore): Promise<Persistence> {
  if ('persistence' in store && typeof store.persistence === 'function') return (store as SessionSecretStore).persistence();
  const available = await store.available();
  if (!available.ok) return { persistent: false, reason: available.reason };
  return store.backend === 'memory' ? { persistent: false, reason: 'the secret store is this process’s memory' } : { persistent: true, reason: null };
}

/**
 * Why the window's session store holds no secret that outlives it (no OS keyring: a secret set before a restart is
 * gone), in words for the operator; null for any other store (the CLI's), or when secrets go to a keyring.
 */
export async function sessionOnlyReason(store: SecretStore): Promise<string | null> {
  if (!('persistence' in store) || typeof store.persistence !== 'function') return null;
  const persistence = await (store as SessionSecretStore).persistence();
  return persistence.persistent ? null : (persistence.reason ?? 'secrets are kept in memory until the app quits');
}

export function withSessionFallback(primary: SecretStore): SessionSecretStore {
  const memory = new Map<string, string>();
  const key = (s: string, a: string) => `${s}\u0000${a}`;
  const keyring = async () => (await primary.available()).ok;
  return {
    get backend() {
      return primary.backend;
    },
    available: async () => ({ ok: true }),
    get: async (s, a) => ((await keyring()) ? primary.get(s, a) : (memory.get(key(s, a)) ?? null)),
    set: async (s, a, secret) => ((await keyring()) ? primary.set(s, a, secret) : void memory.set(key(s, a), secret)),
    delete: async (s, a) => ((await keyring()) ? primary.delete(s, a) : memory.delete(key(s, a))),
    async persistence() {
      const available = await primary.available();
      if (!available.ok) return { persistent: false, reason: `no OS keyring (${available.reason}): secrets are kept in memory until the app quits` };
      return primary.backend === 'memory'
        ? { persistent: false, reason: 'secrets are kept in memory until the app quits' }
        : { persistent: true, reason: null };
    },
  };
}
