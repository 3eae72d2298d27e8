/**
 * A push callback that beats its send: the SDK agent posts its first callback as soon as it starts working, while the
 * blocking send that registered the callback inline (`--push-url`) waits for the answer. The receiver journals that
 * callback unlinked (no task row names its agent yet); once the send lands, the journal's readers (`events list`,
 * `events tail`, the Events view) show it under the agent of the task it names. The journal itself stays as written.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { openStore, type Store } from '../../electron/core/store/store.js';
import { sqliteCallbacks } from '../support/sqlite-callbacks.js';
import { createReceiver, type Receiver } from '../../electron/core/webhook/receiver.js';
import { webhookAuth } from '../../electron/core/webhook/auth.js';

const TOKEN = 'cb-secret-0123456789';
let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
let store: Store;
let receiver: Receiver;
let callbackUrl: string;

beforeAll(async () => {
  // Working at once (its first callback), done a second later (the send's answer).
  fleet = await startAgents({ worker: { behaviour: 'slow', delayMs: 1000, pushNotifications: true } });
});
afterAll(() => fleet.close());
beforeEach(async () => {
  box = sandbox({ CB_TOKEN: TOKEN });
  await register(box, fleet.agents);
  store = openStore(join(box.home, 'state/profiles/default/missive.sqlite3'));
  receiver = createReceiver(
    sqliteCallbacks(() => store),
    { auth: webhookAuth(TOKEN), maxBodyBytes: 64 * 1024 },
  );
  callbackUrl = (await receiver.start()).url;
});
afterEach(async () => {
  await receiver.stop();
  store.close();
  box.dispose();
});

interface Listed {
  sequence: number;
  type: string;
  agent: string | null;
  task_id: string | null;
  payload: { linked?: boolean };
}

describe('a push callback that beats its send', () => {
  it('is shown under its agent once the send lands, and stays as journaled', async () => {
    const sent = await box.run(['send', 'worker', 'work', '--push-url', callbackUrl, '--push-token-env', 'CB_TOKEN', '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    const taskId = sent.json().data.task.task_id as string;
    const pushes = async (): Promise<Listed[]> => {
      const res = await box.run(['events', 'list', '--type', 'a2a.push.*', '--task', taskId, '--json']);
      expect(res.code, res.stderr).toBe(0);
      return res.json().data.events;
    };
    await expect.poll(async () => (await pushes()).some((e) => e.payload.linked !== false), { timeout: 10_000, interval: 50 }).toBe(true);

    const listed = await pushes();
    const early = listed.filter((e) => e.payload.linked === false);
    // The first callback arrived before the send's answer: journaled unlinked, with no agent of its own.
    expect(early.length).toBeGreaterThan(0);
    expect(listed.map((e) => [e.type, e.agent])).toEqual(listed.map((e) => [e.type, 'worker']));
    const table = (await box.run(['events', 'list', '--type', 'a2a.push.*', '--task', taskId])).stdout;
    expect(table).toContain('worker');
    expect(table).not.toMatch(/a2a\.push\.\S+\s+-\s/);

    // Written once, never rewritten: the stored row still has no agent, and `events export` copies it as stored.
    const stored = store.db.prepare(`SELECT agent_alias FROM events WHERE sequence = ?`).get(early[0]!.sequence) as { agent_alias: string | null };
    expect(stored.agent_alias).toBeNull();
  }, 30_000);
});
