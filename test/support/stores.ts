/**
 * The integration suite runs against both stores: `describe.each(STORES)` with `storeUnderTest(kind)` in a
 * beforeEach gives each test the environment that selects its store — nothing for the embedded SQLite default, a
 * fresh PostgreSQL database (its URL in MISSIVE_STORE_URL) for team mode — and `release()` drops what it made.
 */
import { freshPostgresUrl } from './postgres.js';

export const STORES = ['sqlite', 'postgres'] as const;
export type StoreKindUnderTest = (typeof STORES)[number];

export interface StoreUnderTest {
  kind: StoreKindUnderTest;
  /** What to add to a sandbox's environment (sandbox(env)). */
  env: Record<string, string>;
  release(): Promise<void>;
}

export async function storeUnderTest(kind: StoreKindUnderTest): Promise<StoreUnderTest> {
  if (kind === 'sqlite') return { kind, env: {}, release: async () => {} };
  const db = await freshPostgresUrl();
  return { kind, env: { MISSIVE_STORE_URL: db.url }, release: db.drop };
}
