/**
 * Where keyring secrets live. keytar is optional: when it cannot load (not installed, no libsecret)
 * or no Secret Service answers, the store reports why and env-var auth refs keep working.
 */
import { createRequire } from 'node:module';
import type { SecretStore } from '../security/secret-store-port.js';

export type { SecretStore };

interface KeytarModule {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

export const KEYRING_FALLBACK_HELP =
  'The OS keyring is unavailable: install keytar with its system library (libsecret on Linux) and run a Secret Service, ' +
  'or use an auth ref of kind "env" / --bearer-token-env instead.';

export function createKeytarStore(): SecretStore {
  let loaded: { keytar?: KeytarModule; error?: string } | undefined;
  const load = () => {
    if (!loaded) {
      try {
        loaded = { keytar: createRequire(import.meta.url)('keytar') as KeytarModule };
      } catch (error) {
        loaded = { error: `keytar could not be loaded (${(error as Error).message.split('\n')[0]})` };
      }
    }
    return loaded;
  };
  const keytar = () => {
    const { keytar, error } = load();
    if (!keytar) throw new Error(error);
    return keytar;
  };
  return {
    backend: 'keytar',
    async available() {
      const { keytar, error } = load();
      if (!keytar) return { ok: false, reason: error! };
      try {
        await keytar.getPassword('missive', '__probe__');
        return { ok: true };
      } catch (e) {
        return { ok: false, reason: `no Secret Service answered (${(e as Error).message})` };
      }
    },
    get: (service, account) => keytar().getPassword(service, account),
    set: (service, account, secret) => keytar().setPassword(service, account, secret),
    delete: (service, account) => keytar().deletePassword(service, account),
  };
}

/** An in-memory store for tests and for hosts without a keyring. */
export function createMemorySecretStore(): SecretStore {
  const map = new Map<string, string>();
  const key = (s: string, a: string) => `${s}\u0000${a}`;
  return {
    backend: 'memory',
    available: async () => ({ ok: true }),
    get: async (s, a) => map.get(key(s, a)) ?? null,
    set: async (s, a, secret) => void map.set(key(s, a), secret),
    delete: async (s, a) => map.delete(key(s, a)),
  };
}
