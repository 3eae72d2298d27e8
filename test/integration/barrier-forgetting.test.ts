/**
 * barrier and round against agents that forget their tasks (GetTask answers TaskNotFound once a send was answered,
 * a real SDK server: test/support/forgetting-peer.ts), and after a bcast that did not reach every member. A task missive
 * already holds in a final state is never asked for again; a task the agent no longer knows is a final member error,
 * with its reason in the human table; a partial bcast's missing member is named.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { closedPortUrl, register, startAgents } from '../support/agents.js';
import { startForgettingPeer, type ForgettingPeer } from '../support/forgetting-peer.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let forgetful: ForgettingPeer;
let downUrl: string;
let box: Sandbox;

beforeAll(async () => {
  fleet = await startAgents({ echo: { behaviour: 'echo' } });
  forgetful = await startForgettingPeer();
  downUrl = await closedPortUrl();
});
afterAll(async () => {
  await fleet.close();
  await forgetful.close();
});
beforeEach(async () => {
  box = sandbox();
  await register(box, { ...fleet.agents, forgetful });
  expect((await box.run(['agent', 'add', 'down', downUrl])).code).toBe(0);
});
afterEach(() => box.dispose());

const group = async (members: string[]) => expect((await box.run(['group', 'create', 'g', ...members.flatMap((m) => ['--member', m])])).code).toBe(0);

/** Runs `bcast g <text>` under --failure-policy continue and keeps its --json document as bcast.json. */
async function bcastFile(text: string) {
  const res = await box.run(['bcast', 'g', text, '--failure-policy', 'continue', '--json']);
  writeFileSync(join(box.home, 'bcast.json'), res.stdout);
  return res.json().data;
}

/** The data row of `alias` in a human table. */
const rowOf = (stdout: string, alias: string) => stdout.split('\n').find((line) => line.split(/\s+/)[1] === alias) ?? '';

describe('collectives with agents that forget their tasks', () => {
  it('barrier is satisfied by a task it holds completed without asking the agent again, which no longer knows it', async () => {
    await group(['forgetful', 'echo']);
    const sent = await bcastFile('work');
    expect(sent.members[0]).toMatchObject({ alias: 'forgetful', status: 'succeeded', state: 'completed' });
    const asked = forgetful.gets.length;
    for (const source of [
      ['--from-bcast', 'bcast.json'],
      ['--context', sent.request.context_id],
    ]) {
      const res = await box.run(['barrier', 'g', ...source, '--interval', '100ms', '--timeout', '5s', '--json']);
      expect(res.code, res.stderr).toBe(0);
      expect(res.json().data.members[0]).toMatchObject({ alias: 'forgetful', status: 'satisfied', state: 'completed', polls: 0 });
    }
    expect(forgetful.gets.length).toBe(asked);
  });

  it('round with a forgetting member exits 0 when its send completed', async () => {
    await group(['forgetful', 'echo']);
    const res = await box.run(['round', 'g', 'plan the day', '--timeout', '5s', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const data = res.json().data;
    expect(data).toMatchObject({ status: 'succeeded', barrier: { status: 'succeeded', quorum: { required: 2, satisfied: 2 } } });
    expect(data.gather.members[0]).toMatchObject({ alias: 'forgetful', text: 'done: plan the day' });
  });

  it('a task that never finished and is then not found is a final member error, shown with its reason', async () => {
    await group(['forgetful', 'echo']);
    const sent = await bcastFile('linger a while');
    const taskId = sent.members[0].task_id;
    expect(sent.members[0]).toMatchObject({ status: 'succeeded', state: 'working' });
    const reason = `task not found: the agent no longer knows task ${taskId}`;

    const stopped = await box.run(['barrier', 'g', '--from-bcast', 'bcast.json', '--interval', '100ms', '--timeout', '5s']);
    expect(stopped.code).toBe(80);
    expect(rowOf(stopped.stdout, 'forgetful')).toContain(reason);
    expect(stopped.stderr).toContain('forgetful');

    // Under continue too: not a retry until the deadline (82), but decided at the first poll.
    const asked = forgetful.gets.length;
    const continued = await box.run(['barrier', 'g', '--from-bcast', 'bcast.json', '--failure-policy', 'continue', '--interval', '100ms', '--timeout', '5s']);
    expect(continued.code).toBe(80);
    expect(rowOf(continued.stdout, 'forgetful')).toContain(reason);
    expect(forgetful.gets.length).toBe(asked + 1);

    const json = await box.run(['barrier', 'g', '--from-bcast', 'bcast.json', '--json']);
    expect(json.json().data.members[0]).toMatchObject({ status: 'error', reason, error: { code: 'missive::protocol::task_not_found' } });

    const round = await box.run(['round', 'g', 'linger again', '--timeout', '5s']);
    expect(round.code).toBe(80);
    expect(round.stdout).toMatch(/forgetful\s+error\s+working\s+\S+\s+1\s+task not found: the agent no longer knows task/);
  });

  it('barrier --from-bcast after a partial bcast names the missing member and waits for the members the bcast reached', async () => {
    await group(['echo', 'forgetful', 'down']);
    const sent = await bcastFile('work');
    expect(sent.status).toBe('partial_failure');

    const res = await box.run(['barrier', 'g', '--from-bcast', 'bcast.json', '--timeout', '5s']);
    expect(res.code, res.stderr).toBe(0);
    expect(rowOf(res.stdout, 'down')).toMatch(/missing .*the bcast did not reach it/);
    expect(res.stdout).toContain('barrier succeeded: 2 of 2 required satisfied');
    expect(res.stdout).toContain('missing: down');

    const all = await box.run(['barrier', 'g', '--from-bcast', 'bcast.json', '--required', '3', '--timeout', '5s']);
    expect(all.code).toBe(80);
    expect(all.stderr).toContain('missing: down');
    expect(all.stderr).toContain('--required 2');
  });
});
