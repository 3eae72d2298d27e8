/**
 * Gateways' ids (team mode): two `gateway run` processes of one home, on one host, sharing a PostgreSQL store, get
 * distinct stable ids (`<host>/<user>/gw1` and `gw2`); one SIGKILLed and started again gets its old id back; a job's
 * attempt events, and the send events its execution journals, name the gateway that ran it, as does `job show`.
 * `--id` names a gateway, is checked, and is refused while a running gateway holds it. On SQLite the one gateway is
 * gw1. The CLI runs built (`npm run build`): the gateways are processes of their own.
 */
import { hostname, userInfo } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, okData } from '../support/waits.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { freshPostgresUrl } from '../support/postgres.js';
import { startRecordingAgent, type RecordingAgent } from '../support/recording-agent.js';
import { runMissive, spawnMissive, type MissiveProcess } from '../support/missive-process.js';

const idPart = (text: string) => text.replace(/[^A-Za-z0-9._-]/g, '_');
const me = { host: hostname(), user: userInfo().username };
const slot = (n: number) => `${idPart(me.host)}/${idPart(me.user)}/gw${n}`;

interface Listed {
  type: string;
  source: string;
  actor: { host: string; user: string; id: string } | null;
  payload: Record<string, unknown>;
}

let agent: RecordingAgent;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  agent = await startRecordingAgent({ minMs: 10, maxMs: 20 });
});
afterAll(() => agent.close());
afterEach(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

const launch = (box: Sandbox, ...extra: string[]): MissiveProcess => {
  const gateway = spawnMissive(['gateway', 'run', '--interval', '200ms', '--claim-ttl', '10s', '--ndjson', ...extra], box.env);
  cleanups.push(() => gateway.kill());
  return gateway;
};

/** The id a running gateway says it holds (its `gateway_started` line). */
const idOf = async (g: MissiveProcess, what: string): Promise<string> =>
  (
    await eventually(
      `${what} to start`,
      () => {
        if (g.child.exitCode !== null) throw new Error(`${what} exited (${g.child.exitCode}): ${g.stderr()}`);
        return g.of('gateway_started')[0];
      },
      30_000,
      20,
    )
  ).data.holder as string;

describe('gateway ids on a shared PostgreSQL store', () => {
  it('two gateways of one home get distinct ids that survive a restart, and a job says which one ran it', async () => {
    const db = await freshPostgresUrl();
    cleanups.push(() => db.drop());
    const box = sandbox({ MISSIVE_STORE_URL: db.url });
    cleanups.push(() => box.dispose());
    okData(await box.run(['agent', 'add', 'worker', agent.baseUrl, '--json']), 'agent add');

    // Started at the same moment: each takes its own slot.
    const first = launch(box);
    const second = launch(box);
    const ids = [await idOf(first, 'gateway 1'), await idOf(second, 'gateway 2')];
    expect([...ids].sort()).toEqual([slot(1), slot(2)]);

    // SIGKILLed, its pool row still unexpired (10 s): started again, it gets its id back.
    const [killed, kept] = ids[0] === slot(1) ? [first, second] : [second, first];
    killed.child.kill('SIGKILL');
    await killed.exited;
    const again = launch(box);
    expect(await idOf(again, 'the restarted gateway')).toBe(slot(1));

    // A job's attempt events, and the send its execution journals, name the gateway that ran it.
    const job = okData(await box.run(['job', 'start', 'send', 'worker', 'who runs me', '--json']), 'job start');
    const shown = await eventually(
      'the job to succeed',
      async () => {
        const j = okData(await box.run(['job', 'show', job.job_id, '--json']), 'job show');
        return j.state === 'succeeded' && j;
      },
      30_000,
      100,
    );
    const ranBy = [again, kept].filter((g) => g.of('job_started').some((l) => l.data.job_id === job.job_id));
    expect(ranBy).toHaveLength(1);
    const runner = await idOf(ranBy[0]!, 'the gateway that ran it');
    expect(shown.last_run_by).toBe(runner);

    const listed: Listed[] = okData(await box.run(['events', 'list', '--limit', '1000', '--json']), 'events list').events;
    const ofJob = listed.filter((e) => e.type.startsWith('missive.job.') && e.payload.job_id === job.job_id);
    expect(ofJob.map((e) => [e.type, e.actor])).toContainEqual(['missive.job.succeeded', { ...me, id: runner }]);
    // `job start` ran in this (test) process: its event says so.
    expect(ofJob.find((e) => e.type === 'missive.job.started')?.actor).toEqual({ ...me, id: `cli:${process.pid}` });
    for (const e of ofJob.filter((x) => x.source === 'gateway')) expect(e.actor, e.type).toEqual({ ...me, id: runner });
    const send = listed.filter((e) => e.type === 'a2a.send.completed' && e.payload.message_id === job.summary.message_id);
    expect(send.map((e) => e.actor)).toEqual([{ ...me, id: runner }]);
    // `history show` of that send says who sent it.
    const history = okData(await box.run(['history', 'show', job.summary.message_id, '--json']), 'history show');
    expect(history.entry.actor).toEqual({ ...me, id: runner });
    const human = await box.run(['history', 'show', job.summary.message_id]);
    expect(human.stdout).toMatch(new RegExp(`^by\\s+${me.user}@${me.host} \\S*${runner.split('/').at(-1)}$`, 'm'));
    // And `events list --actor` finds them.
    const byRunner: Listed[] = okData(await box.run(['events', 'list', '--actor', runner, '--type', 'missive.job.*', '--json']), 'events list --actor').events;
    expect(byRunner.map((e) => e.payload.job_id)).toContain(job.job_id);

    // --id names a gateway; a second one asking for the same id while it runs is refused (70), a malformed one too (64).
    const named = launch(box, '--id', 'lab-1');
    expect(await idOf(named, 'the named gateway')).toBe('lab-1');
    const twin = await runMissive(['gateway', 'run', '--id', 'lab-1', '--once', '--json'], box.env);
    expect(twin.code, twin.stderr).toBe(70);
    expect(twin.stderr).toContain('gateway_id_in_use');
    const bad = await runMissive(['gateway', 'run', '--id', 'no/slashes', '--once', '--json'], box.env);
    expect(bad.code, bad.stderr).toBe(64);
    expect(bad.stderr).toContain('invalid_gateway_id');

    for (const g of [kept, again, named]) g.child.kill('SIGTERM');
    for (const g of [kept, again, named]) expect(await g.exited, g.stderr()).toBe(0);
    // Stopped cleanly, the pool is empty: the next one is gw1 again.
    const next = await runMissive(['gateway', 'run', '--once', '--ndjson'], box.env);
    expect(next.code, next.stderr).toBe(0);
    expect(next.lines.find((l) => l.kind === 'gateway_started')?.data.holder).toBe(slot(1));
  }, 120_000);
});

describe('the gateway id on SQLite', () => {
  it('is gw1 (one gateway per profile), in its events too', async () => {
    const box = sandbox();
    cleanups.push(() => box.dispose());
    const run = await runMissive(['gateway', 'run', '--once', '--ndjson'], box.env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines.find((l) => l.kind === 'gateway_started')?.data.holder).toBe(slot(1));
    const listed: Listed[] = okData(await box.run(['events', 'list', '--type', 'missive.gateway.*', '--json']), 'events list').events;
    expect(listed.map((e) => [e.type, e.actor])).toEqual([
      ['missive.gateway.started', { ...me, id: slot(1) }],
      ['missive.gateway.stopped', { ...me, id: slot(1) }],
    ]);
  }, 60_000);
});
