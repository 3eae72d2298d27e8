/**
 * Signed Agent Cards and GetExtendedAgentCard against real SDK agents on loopback: a card signed with the SDK's
 * generateAgentCardSignature verifies (key from the signature's jku, or the agent's configured jwks_url / jwks_file);
 * a tampered one is invalid, an unsigned one unsigned; --require-signed-card and `[protocol] require_signed_card`
 * refuse both before anything is sent; the extended card comes over HTTP+JSON, JSON-RPC and gRPC, only with the token.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stateBytes, sandbox, type Sandbox } from '../support/cli.js';
import { startAgents } from '../support/agents.js';
import { startV03Peer } from '../support/legacy-peers.js';
import { startSignedAgent, type SignedAgent } from '../support/signed-agent.js';

const TOKEN = 'tok-signed-7c41e09a2b';

let signed: SignedAgent;
let tampered: SignedAgent;
let unsigned: SignedAgent;
let noJku: SignedAgent;
let box: Sandbox;

beforeAll(async () => {
  [signed, tampered, unsigned, noJku] = await Promise.all([
    startSignedAgent({ token: TOKEN, grpc: true }),
    startSignedAgent({ token: TOKEN, signing: 'tampered' }),
    startSignedAgent({ token: TOKEN, signing: 'unsigned' }),
    startSignedAgent({ token: TOKEN, jku: false, kid: 'configured-key' }),
  ]);
});
afterAll(async () => void (await Promise.all([signed, tampered, unsigned, noJku].map((a) => a?.close()))));
beforeEach(() => {
  box = sandbox({ MY_TOKEN: TOKEN });
});
afterEach(() => box.dispose());

/** The error report of a failed `--json` run. */
const errorOf = (res: { stdout: string; stderr: string }) => JSON.parse(res.stdout || res.stderr).data;

const a2aRequests = (agent: SignedAgent) => agent.requests.filter((r) => r.path.startsWith('/a2a/')).length;

/** Registers the agent; its gRPC port is another origin, trusted with the agent's credentials. */
async function add(alias: string, agent: SignedAgent): Promise<void> {
  const trust = agent.grpcTarget ? ['--trust-origin', `http://${agent.grpcTarget}`] : [];
  const res = await box.run(['agent', 'add', alias, agent.baseUrl, ...trust]);
  expect(res.code).toBe(0);
}

describe('card signatures in agent inspect', () => {
  it('reports a card signed with the SDK and a jku JWKS as verified, with its kid', async () => {
    await add('sig', signed);
    const res = await box.run(['agent', 'inspect', 'sig', '--json']);
    expect(res.code).toBe(0);
    expect(res.json().data.signature).toEqual({ status: 'verified', kid: 'card-key-1', reason: null, key_source: 'jku' });
    const human = await box.run(['agent', 'inspect', 'sig']);
    expect(human.stdout).toMatch(/card signature\s+verified \(kid card-key-1, key from the signature's jku\)/);
  });

  it('reports a card changed after signing as invalid, with the reason on one line', async () => {
    await add('bad', tampered);
    const res = await box.run(['agent', 'inspect', 'bad', '--json']);
    expect(res.code).toBe(0);
    const { signature } = res.json().data;
    expect(signature).toMatchObject({ status: 'invalid', kid: 'card-key-1' });
    expect(signature.reason).toMatch(/does not match the card/);
    expect(signature.reason).not.toContain('\n');
    expect((await box.run(['agent', 'inspect', 'bad'])).stdout).toMatch(/card signature\s+invalid: the signature does not match the card/);
  });

  it('reports a card without signatures as unsigned', async () => {
    await add('plain', unsigned);
    const res = await box.run(['agent', 'inspect', 'plain', '--json']);
    expect(res.json().data.signature).toEqual({ status: 'unsigned', kid: null, reason: null, key_source: null });
  });

  it('says which key source is missing when the signature has no jku and nothing is configured', async () => {
    await add('nojku', noJku);
    const { signature } = (await box.run(['agent', 'inspect', 'nojku', '--json'])).json().data;
    expect(signature.status).toBe('invalid');
    expect(signature.reason).toMatch(/no jku.*jwks_url or jwks_file/);
  });

  it('verifies with the jwks_url or jwks_file configured for the agent', async () => {
    const jwksFile = join(box.home, 'keys.jwks.json');
    writeFileSync(jwksFile, JSON.stringify(noJku.jwks));
    const config = join(box.home, 'missive.toml');
    writeFileSync(
      config,
      `[agents.byurl]\nbase_url = "${noJku.baseUrl}"\njwks_url = "${noJku.jwksUrl}"\n\n[agents.byfile]\nbase_url = "${noJku.baseUrl}"\njwks_file = "keys.jwks.json"\n`,
    );
    const env = { MISSIVE_CONFIG: config };
    const byUrl = await box.run(['agent', 'inspect', 'byurl', '--json'], { env });
    expect(byUrl.json().data.signature).toEqual({ status: 'verified', kid: 'configured-key', reason: null, key_source: 'jwks_url' });
    const byFile = await box.run(['agent', 'inspect', 'byfile', '--json'], { env });
    expect(byFile.json().data.signature).toEqual({ status: 'verified', kid: 'configured-key', reason: null, key_source: 'jwks_file' });
  });

  it('verifies with keys given on the command line: agent add --jwks-url, agent set --jwks-file, --clear-jwks', async () => {
    const jwksFile = join(box.home, 'cli.jwks.json');
    writeFileSync(jwksFile, JSON.stringify(noJku.jwks));
    const added = await box.run(['agent', 'add', 'cliurl', noJku.baseUrl, '--jwks-url', noJku.jwksUrl, '--json']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.json().data.agent.card_keys).toEqual({ jwks_url: noJku.jwksUrl, jwks_file: null });
    expect((await box.run(['agent', 'inspect', 'cliurl', '--json'])).json().data.signature).toMatchObject({
      status: 'verified',
      kid: 'configured-key',
      key_source: 'jwks_url',
    });

    await add('clifile', noJku);
    expect((await box.run(['agent', 'inspect', 'clifile', '--json'])).json().data.signature.status).toBe('invalid');
    const set = await box.run(['agent', 'set', 'clifile', '--jwks-file', 'cli.jwks.json', '--json']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.json().data.agent.card_keys).toEqual({ jwks_url: null, jwks_file: jwksFile });
    expect((await box.run(['agent', 'inspect', 'clifile', '--json'])).json().data.signature).toMatchObject({ status: 'verified', key_source: 'jwks_file' });
    expect((await box.run(['--require-signed-card', 'send', 'clifile', 'hi', '--bearer-token-env', 'MY_TOKEN'])).code).toBe(0);

    expect((await box.run(['agent', 'set', 'clifile', '--clear-jwks', '--json'])).json().data.agent.card_keys).toBeNull();
    expect((await box.run(['agent', 'inspect', 'clifile', '--json'])).json().data.signature.status).toBe('invalid');
    expect((await box.run(['agent', 'set', 'clifile', '--jwks-file', 'missing.json'])).code).toBe(64);
    expect((await box.run(['agent', 'add', 'badurl', noJku.baseUrl, '--jwks-url', 'ftp://keys'])).code).toBe(64);
  });

  it('finds the configured JWKS without the kid the card names as invalid, naming the kid', async () => {
    const config = join(box.home, 'missive.toml');
    // The JWKS of another agent: it holds another key id.
    writeFileSync(config, `[agents.wrongkeys]\nbase_url = "${noJku.baseUrl}"\njwks_url = "${signed.jwksUrl}"\n`);
    const res = await box.run(['agent', 'inspect', 'wrongkeys', '--json'], { env: { MISSIVE_CONFIG: config } });
    expect(res.json().data.signature).toMatchObject({ status: 'invalid', kid: 'configured-key', key_source: 'jwks_url' });
    expect(res.json().data.signature.reason).toMatch(/has no key "configured-key"/);
  });
});

describe('--require-signed-card and [protocol] require_signed_card', () => {
  it('refuses an unsigned card (exit 76) before anything reaches the agent', async () => {
    await add('plain', unsigned);
    const before = a2aRequests(unsigned);
    const res = await box.run(['--require-signed-card', 'send', 'plain', 'hello', '--bearer-token-env', 'MY_TOKEN', '--json']);
    expect(res.code).toBe(76);
    expect(errorOf(res).code).toBe('missive::protocol::unsigned_card');
    expect(a2aRequests(unsigned)).toBe(before);
  });

  it('refuses a card whose signature does not verify (exit 76), naming why', async () => {
    await add('bad', tampered);
    const before = a2aRequests(tampered);
    const res = await box.run(['send', 'bad', 'hello', '--bearer-token-env', 'MY_TOKEN', '--require-signed-card']);
    expect(res.code).toBe(76);
    expect(res.stderr).toMatch(/does not verify: the signature does not match the card/);
    expect(res.stderr).toMatch(/missive agent inspect bad --refresh/);
    expect(a2aRequests(tampered)).toBe(before);
  });

  it('lets a verified card through', async () => {
    await add('sig', signed);
    const res = await box.run(['--require-signed-card', 'send', 'sig', 'hello', '--bearer-token-env', 'MY_TOKEN', '--json']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('echo: hello');
  });

  it('takes the same policy from the config file', async () => {
    const config = join(box.home, 'missive.toml');
    writeFileSync(
      config,
      `[protocol]\nrequire_signed_card = true\n\n[agents.plain]\nbase_url = "${unsigned.baseUrl}"\n\n[agents.sig]\nbase_url = "${signed.baseUrl}"\n`,
    );
    const env = { MISSIVE_CONFIG: config };
    const refused = await box.run(['send', 'plain', 'hello', '--bearer-token-env', 'MY_TOKEN', '--json'], { env });
    expect(refused.code).toBe(76);
    expect(errorOf(refused).code).toBe('missive::protocol::unsigned_card');
    const allowed = await box.run(['send', 'sig', 'hello', '--bearer-token-env', 'MY_TOKEN', '--json'], { env });
    expect(allowed.code).toBe(0);
  });
});

describe('GetExtendedAgentCard (agent inspect --extended)', () => {
  for (const binding of ['http+json', 'json-rpc', 'grpc'] as const) {
    it(`fetches the extended card over ${binding} with the agent's token, and shows what it adds`, async () => {
      await add('sig', signed);
      const res = await box.run(['agent', 'inspect', 'sig', '--extended', '--binding', binding, '--bearer-token-env', 'MY_TOKEN', '--json']);
      expect(res.code, res.stderr).toBe(0);
      const ext = res.json().data.extended_card;
      expect(ext.interface.binding).toBe(binding);
      expect(ext.card.name).toBe('signed agent (extended)');
      expect(ext.added_skills).toEqual(['private-reports']);
      expect(ext.signature).toMatchObject({ status: 'verified', kid: 'card-key-1' });
      expect(res.stdout + res.stderr + stateBytes(box.home)).not.toContain(TOKEN);
    });

    it(`is refused as an auth error (exit 77) over ${binding} without the token`, async () => {
      await add('sig', signed);
      const res = await box.run(['agent', 'inspect', 'sig', '--extended', '--binding', binding, '--json']);
      expect(res.code).toBe(77);
      // The same error on every wire: gRPC UNAUTHENTICATED is a 401.
      expect(errorOf(res)).toMatchObject({ category: 'auth', code: 'missive::auth::unauthorized' });
      expect(errorOf(res).message).toMatch(binding === 'grpc' ? /refused with gRPC UNAUTHENTICATED/ : /answered HTTP 401 Unauthorized/);
    });
  }

  it('shows the extended card in human output', async () => {
    await add('sig', signed);
    const res = await box.run(['agent', 'inspect', 'sig', '--extended', '--bearer-token-env', 'MY_TOKEN']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Extended Agent Card/);
    expect(res.stdout).toMatch(/skills added\s+private-reports/);
    expect(res.stdout).not.toContain(TOKEN);
  });

  it('is a usage error (exit 64) for an agent whose card does not advertise it, and sends nothing', async () => {
    const fleet = await startAgents({ plain: { behaviour: 'echo' } });
    try {
      const agent = fleet.agents.plain!;
      expect((await box.run(['agent', 'add', 'plain', agent.baseUrl])).code).toBe(0);
      const res = await box.run(['agent', 'inspect', 'plain', '--extended', '--json']);
      expect(res.code).toBe(64);
      expect(errorOf(res).code).toBe('missive::validation::extended_card_not_advertised');
      expect(agent.requests.filter((r) => r.path.startsWith('/a2a/'))).toEqual([]);
    } finally {
      await fleet.close();
    }
  });

  it('reads a v0.3 agent: its card is unsigned, and agent/getAuthenticatedExtendedCard answers over JSON-RPC and HTTP+JSON', async () => {
    const peer = await startV03Peer({
      bearer: TOKEN,
      cardExtra: { supportsAuthenticatedExtendedCard: true },
      extendedCard: {
        name: 'v03-peer (extended)',
        skills: [
          { id: 'work', name: 'Worker', description: 'does work', tags: ['legacy'] },
          { id: 'audit', name: 'Audit', description: 'audits', tags: ['internal'] },
        ],
      },
    });
    try {
      expect((await box.run(['agent', 'add', 'old', peer.baseUrl, '--trust-origin', `http://${peer.grpcTarget}`])).code).toBe(0);
      const inspect = await box.run(['agent', 'inspect', 'old', '--json']);
      expect(inspect.json().data.signature.status).toBe('unsigned');
      for (const binding of ['json-rpc', 'http+json']) {
        const res = await box.run(['agent', 'inspect', 'old', '--extended', '--binding', binding, '--bearer-token-env', 'MY_TOKEN', '--json']);
        expect(res.code, res.stdout + res.stderr).toBe(0);
        const ext = res.json().data.extended_card;
        expect(ext.interface).toMatchObject({ binding, dialect: '0.3' });
        expect(ext.card.name).toBe('v03-peer (extended)');
        expect(ext.added_skills).toEqual(['audit']);
      }
      const refused = await box.run(['agent', 'inspect', 'old', '--extended', '--binding', 'json-rpc', '--json']);
      expect(refused.code).toBe(77);
    } finally {
      await peer.close();
    }
  });
});
