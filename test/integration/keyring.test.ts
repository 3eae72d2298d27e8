/**
 * The OS keyring path through keytar against a real Secret Service (gnome-keyring under dbus-run-session in CI).
 * Where no Secret Service runs, the same command must fail with exit 77 and the documented fallback advice;
 * MISSIVE_REQUIRE_KEYRING=1 (set by .ci/run) turns an unavailable keyring into a test failure.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeytarStore } from '../../electron/core/auth/secret-store.js';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';
import { sandbox } from '../support/cli.js';

const store = createKeytarStore();
let server: RawServer;

beforeAll(async () => {
  server = await startRawServer();
  server.route('/.well-known/agent-card.json', (_req, res) => json(res, 200, minimalCard(server.url)));
});
afterAll(() => server.close());

describe('OS keyring via keytar', () => {
  it('round-trips a secret into the real keyring and uses it as the Authorization header', async () => {
    const available = await store.available();
    const box = sandbox(process.env.DBUS_SESSION_BUS_ADDRESS ? { DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS } : {}, store);
    const account = `test-${randomUUID()}`;
    try {
      await box.run(['auth', 'add', 'os', '--keyring-service', 'missive-test', '--keyring-account', account]);
      await box.run(['agent', 'add', 'peer', server.url, '--auth-ref', 'os']);
      const set = await box.run(['auth', 'set-secret', 'os', '--json'], { stdin: 'kr-secret-0123456789' });
      if (!available.ok) {
        if (process.env.MISSIVE_REQUIRE_KEYRING === '1') throw new Error(`keyring required but unavailable: ${available.reason}`);
        expect(set.code).toBe(77);
        expect(JSON.parse(set.stderr).data.help).toMatch(/kind "env"/);
        return;
      }
      expect(set.code).toBe(0);
      expect(await store.get('missive-test', account)).toBe('kr-secret-0123456789');
      expect((await box.run(['agent', 'inspect', 'peer'])).code).toBe(0);
      expect(server.requests.at(-1)!.headers.authorization).toBe('Bearer kr-secret-0123456789');
      expect((await box.run(['auth', 'list', '--json'])).json().data.auth_refs[0].present).toBe(true);
    } finally {
      if (available.ok) await store.delete('missive-test', account);
      box.dispose();
    }
  });
});
