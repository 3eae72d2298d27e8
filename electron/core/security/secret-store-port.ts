/**
 * What a secret store can do (the OS keyring through keytar, or an in-memory one in tests and the demo). A type of its
 * own, below the `Core` handle that carries one: auth/secret-store.ts implements it.
 */
export interface SecretStore {
  readonly backend: string;
  available(): Promise<{ ok: true } | { ok: false; reason: string }>;
  get(service: string, account: string): Promise<string | null>;
  set(service: string, account: string, secret: string): Promise<void>;
  delete(service: string, account: string): Promise<boolean>;
}
