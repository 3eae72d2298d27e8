/** Card signature checks without a network: key lookup rules, reasons, and what the SDK's verifier logs. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { generateAgentCardSignature } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseCard } from '../../electron/core/a2a/card.js';
import { createJwksCache, verifyCardSignature, type ConfiguredKeys } from '../../electron/core/a2a/card-signature.js';

const CARD = {
  name: 'unit card',
  description: 'for signature checks',
  version: '1.0.0',
  supportedInterfaces: [{ url: 'http://127.0.0.1:9/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: [] }],
};

let dir: string;
let keyPair: Awaited<ReturnType<typeof generateKeyPair>>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'missive-sig-'));
  keyPair = await generateKeyPair('ES256', { extractable: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const check = (card: Record<string, unknown>, keys: ConfiguredKeys = {}) =>
  verifyCardSignature(parseCard(card), card, { keys, cache: createJwksCache(), timeoutMs: 2000 });

async function jwksFile(name: string, jwk: Record<string, unknown>): Promise<string> {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ keys: [jwk] }));
  return path;
}

describe('verifyCardSignature', () => {
  it('refuses a jku over plain http to a host that is not loopback, and says so', async () => {
    const signed = await generateAgentCardSignature(keyPair.privateKey, { alg: 'ES256', kid: 'k1', typ: 'JOSE', jku: 'http://keys.example/jwks.json' })(
      CARD as never,
    );
    const view = await check(signed as never);
    expect(view).toMatchObject({ status: 'invalid', kid: 'k1' });
    expect(view.reason).toMatch(/must use https/);
  });

  it('uses only the public members of a configured JWK (a careless JWKS with the private d still verifies)', async () => {
    const file = await jwksFile('private.json', { ...(await exportJWK(keyPair.privateKey)), kid: 'k1' });
    const signed = await generateAgentCardSignature(keyPair.privateKey, { alg: 'ES256', kid: 'k1', typ: 'JOSE' })(CARD as never);
    expect(await check(signed as never, { jwksFile: file })).toEqual({ status: 'verified', kid: 'k1', reason: null, key_source: 'jwks_file' });
  });

  it('verifies with the second signature when the first names an unknown key, reporting the kid that verified', async () => {
    const file = await jwksFile('public.json', { ...(await exportJWK(keyPair.publicKey)), kid: 'good' });
    const other = await generateKeyPair('ES256');
    const once = await generateAgentCardSignature(other.privateKey, { alg: 'ES256', kid: 'unknown', typ: 'JOSE' })(CARD as never);
    const twice = await generateAgentCardSignature(keyPair.privateKey, { alg: 'ES256', kid: 'good', typ: 'JOSE' })(once);
    expect(await check(twice as never, { jwksFile: file })).toMatchObject({ status: 'verified', kid: 'good' });
  });

  it('names a signature header without kid, alg and typ', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'ES256' })).toString('base64url');
    const view = await check({ ...CARD, signatures: [{ protected: header, signature: 'AAAA' }] });
    expect(view.status).toBe('invalid');
    expect(view.reason).toMatch(/kid, alg and typ/);
  });

  it('prints nothing of the SDK verifier on the console when a signature fails', async () => {
    const debug = vi.spyOn(console, 'debug');
    const log = vi.spyOn(console, 'log');
    try {
      const file = await jwksFile('public2.json', { ...(await exportJWK(keyPair.publicKey)), kid: 'k1' });
      const signed = (await generateAgentCardSignature(keyPair.privateKey, { alg: 'ES256', kid: 'k1', typ: 'JOSE' })(CARD as never)) as unknown as Record<
        string,
        unknown
      >;
      const view = await check({ ...signed, name: 'renamed' }, { jwksFile: file });
      expect(view.status).toBe('invalid');
      expect(debug).not.toHaveBeenCalled();
      expect(log).not.toHaveBeenCalled();
    } finally {
      debug.mockRestore();
      log.mockRestore();
    }
  });
});
