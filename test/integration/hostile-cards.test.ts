/**
 * Hostile Agent Cards against real signed SDK agents on loopback: a card that carries thousands of signatures, each
 * naming its own `jku`, makes missive fetch only a handful of JWKS documents (and says the rest were not checked); a
 * `jku` on another loopback port than the card's is never fetched; a few signatures within the bound still verify.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { json, startRawServer, type RawServer } from '../support/raw-server.js';
import { startSignedAgent, type SignedAgent } from '../support/signed-agent.js';

const TOKEN = 'tok-hostile-3f81c2d07e';

let box: Sandbox;
const closers: Array<() => Promise<void>> = [];
beforeEach(() => {
  box = sandbox({ MY_TOKEN: TOKEN });
});
afterEach(async () => {
  box.dispose();
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function signedAgent(options: Parameters<typeof startSignedAgent>[0]): Promise<SignedAgent> {
  const agent = await startSignedAgent(options);
  closers.push(() => agent.close());
  return agent;
}

/** The JWKS documents the agent served (/jwks.json and /jwks/<n>.json). */
const jwksFetches = (agent: SignedAgent) => agent.requests.filter((r) => r.path.startsWith('/jwks')).length;

/** Registers the agent with its bearer token (its A2A routes need it). */
async function add(alias: string, agent: SignedAgent): Promise<void> {
  await box.run(['auth', 'add', 'tok', '--env', 'MY_TOKEN']);
  const res = await box.run(['agent', 'add', alias, agent.baseUrl, '--auth-ref', 'tok']);
  expect(res.code, res.stderr).toBe(0);
}

const errorOf = (res: { stdout: string; stderr: string }) => JSON.parse(res.stderr || res.stdout).data;

describe('a card with thousands of signatures', () => {
  it('fetches a handful of JWKS URLs, not thousands, and refuses the card under --require-signed-card (exit 76), naming the bound', async () => {
    // 2000 decoys, each with its own jku on the agent's origin, and the real signature last.
    const agent = await signedAgent({ token: TOKEN, extraSignatures: 2000 });
    await add('many', agent);
    const sent = await box.run(['send', 'many', 'hi', '--require-signed-card', '--json']);
    expect(jwksFetches(agent)).toBeLessThanOrEqual(3);
    expect(sent.code, sent.stdout).toBe(76);
    const error = errorOf(sent);
    expect(error.code).toBe('missive::protocol::invalid_card_signature');
    expect(error.message).toMatch(/2001 signatures/);
    expect(error.message).toMatch(/at most \d+/);
    expect(error.message).not.toContain('\n');
    expect(agent.requests.filter((r) => r.path.startsWith('/a2a/'))).toEqual([]);
  });

  it('reports in agent inspect that the signatures beyond the bound were not checked, rather than accepting the card', async () => {
    const agent = await signedAgent({ token: TOKEN, extraSignatures: 2000 });
    await add('many', agent);
    const res = await box.run(['agent', 'inspect', 'many', '--json']);
    expect(res.code).toBe(0);
    const { signature } = res.json().data;
    expect(signature.status).toBe('invalid');
    expect(signature.reason).toMatch(/not checked/);
    expect(jwksFetches(agent)).toBeLessThanOrEqual(3);
  });

  it('still verifies a card whose valid signature comes after two others, each JWKS fetched once', async () => {
    const agent = await signedAgent({ token: TOKEN, extraSignatures: 2 });
    await add('few', agent);
    const res = await box.run(['agent', 'inspect', 'few', '--json']);
    expect(res.json().data.signature).toEqual({ status: 'verified', kid: 'card-key-1', reason: null, key_source: 'jku' });
    expect(jwksFetches(agent)).toBe(3);
    const sent = await box.run(['send', 'few', 'hi', '--require-signed-card', '--json']);
    expect(sent.code, sent.stderr).toBe(0);
  });
});

describe('a jku off the card origin', () => {
  let keys: RawServer;
  let agent: SignedAgent;
  beforeEach(async () => {
    // Another loopback port serving the agent's own (valid) JWKS: only the origin rule keeps missive from using it.
    keys = await startRawServer();
    closers.push(() => keys.close());
    agent = await signedAgent({ token: TOKEN, jkuUrl: `${keys.url}/jwks.json` });
    keys.route('/jwks.json', (_req, res) => json(res, 200, agent.jwks));
  });

  it('is never fetched: the card is invalid, and the reason names the card origin and jwks_url', async () => {
    await add('offsite', agent);
    const res = await box.run(['agent', 'inspect', 'offsite', '--json']);
    expect(res.code).toBe(0);
    const { signature } = res.json().data;
    expect(signature.status).toBe('invalid');
    expect(signature.reason).toContain(keys.url);
    expect(signature.reason).toContain(agent.baseUrl);
    expect(signature.reason).toMatch(/jwks_url/);
    const refused = await box.run(['send', 'offsite', 'hi', '--require-signed-card', '--json']);
    expect(refused.code).toBe(76);
    expect(errorOf(refused).code).toBe('missive::protocol::invalid_card_signature');
    expect(keys.requests).toEqual([]);
  });

  it('is used when the operator configures that JWKS for the agent', async () => {
    await add('offsite', agent);
    expect((await box.run(['agent', 'set', 'offsite', '--jwks-url', `${keys.url}/jwks.json`])).code).toBe(0);
    const res = await box.run(['agent', 'inspect', 'offsite', '--json']);
    expect(res.json().data.signature).toEqual({ status: 'verified', kid: 'card-key-1', reason: null, key_source: 'jwks_url' });
    expect(keys.requests.length).toBe(1);
  });
});
