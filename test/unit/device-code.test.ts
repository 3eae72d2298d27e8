/**
 * The device-code poll loop (RFC 8628 §3.5) against a scripted loopback token endpoint: it waits the interval the
 * server sets, five seconds longer after each `slow_down`, keeps polling on `authorization_pending`, and returns the
 * token once approved. The waits go through an injected sleep, so the test records them instead of waiting.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { deviceCodeLogin } from '../../electron/core/auth/oauth2/device-code.js';
import type { DeviceCodePrompt } from '../../electron/core/auth/oauth2/context.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A device endpoint and a token endpoint answering the scripted poll results in order. */
async function scripted(polls: Array<Record<string, unknown>>): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      bodies.push(`${req.url} ${body}`);
      const answer =
        req.url === '/device'
          ? { device_code: 'dev-1', user_code: 'ABCD-EFGH', verification_uri: 'https://example.test/activate', expires_in: 600, interval: 2 }
          : polls.shift();
      res.writeHead(answer && 'error' in answer ? 400 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

const flow = { type: 'oauth2_device_code' as const, device_authorization_url: null, token_url: null, issuer: null, client_id: 'app', scopes: ['read'] };

describe('device code polling', () => {
  it('honours interval and slow_down, and returns the approved token', async () => {
    const { url, bodies } = await scripted([
      { error: 'authorization_pending' },
      { error: 'slow_down' },
      { error: 'authorization_pending' },
      { access_token: 'tok-approved-1', token_type: 'Bearer', expires_in: 120 },
    ]);
    const waits: number[] = [];
    const prompts: DeviceCodePrompt[] = [];
    const token = await deviceCodeLogin(
      'sso',
      flow,
      { token_url: `${url}/token`, device_authorization_url: `${url}/device` },
      { id: 'app', secret: null },
      {
        profile: 'default',
        secrets: createMemorySecretStore(),
        timeoutMs: 5000,
        sleep: async (ms) => void waits.push(ms),
        onDeviceCode: (p) => prompts.push(p),
      },
    );
    expect(token.access_token).toBe('tok-approved-1');
    expect(waits).toEqual([2000, 2000, 7000, 7000]);
    expect(prompts).toEqual([
      { auth_ref: 'sso', verification_uri: 'https://example.test/activate', verification_uri_complete: null, user_code: 'ABCD-EFGH', expires_in: 600 },
    ]);
    expect(bodies[0]).toBe('/device scope=read&client_id=app');
    expect(bodies[1]).toBe('/token grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=dev-1&client_id=app');
  });

  it('stops at the local deadline when the code outlives its expires_in', async () => {
    const { url } = await scripted(Array.from({ length: 5 }, () => ({ error: 'authorization_pending' })));
    let now = 0;
    const login = deviceCodeLogin(
      'sso',
      flow,
      { token_url: `${url}/token`, device_authorization_url: `${url}/device` },
      { id: 'app', secret: null },
      {
        profile: 'default',
        secrets: createMemorySecretStore(),
        timeoutMs: 5000,
        now: () => now,
        sleep: async (ms) => void (now += ms * 200),
      },
    );
    await expect(login).rejects.toMatchObject({ code: 'missive::auth::device_code_expired', exitCode: 77 });
  });
});
