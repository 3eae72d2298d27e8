/**
 * One group of agents of three generations, one round: an A2A 1.0 agent (@a2a-js/sdk 1.x), a v0.3 agent over gRPC
 * (@a2a-js/sdk 0.3) and a v0.2 agent over JSON-RPC (@a2a-js/sdk 0.2). The collective cannot tell them apart.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { startAgents } from '../support/agents.js';
import { startV02Peer, startV03Peer, type LegacyPeer } from '../support/legacy-peers.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let v03: LegacyPeer;
let v02: LegacyPeer;
let box: Sandbox;

beforeAll(async () => {
  fleet = await startAgents({ current: { behaviour: 'task' }, reducer: { behaviour: 'reducer' } });
  [v03, v02] = await Promise.all([startV03Peer({ slowMs: 300 }), startV02Peer({ slowMs: 300 })]);
});
afterAll(async () => {
  await Promise.all([fleet.close(), v03.close(), v02.close()]);
});
beforeEach(async () => {
  box = sandbox();
  const adds = [
    ['current', fleet.agents.current!.baseUrl],
    ['reducer', fleet.agents.reducer!.baseUrl],
    ['v03', v03.baseUrl, '--binding-preference', 'grpc'],
    ['v02', v02.baseUrl],
  ];
  for (const [alias, url, ...rest] of adds) expect((await box.run(['agent', 'add', alias!, url!, ...rest])).code).toBe(0);
  expect((await box.run(['group', 'create', 'gens', '--member', 'current', '--member', 'v03', '--member', 'v02'])).code).toBe(0);
});
afterEach(() => box.dispose());

describe('a group of A2A 1.0, 0.3 and 0.2 agents', () => {
  it('runs bcast → barrier → gather → reduce in one context', async () => {
    const res = await box.run(['round', 'gens', 'slow survey', '--reducer-agent', 'reducer', '--json']);
    expect(res.code).toBe(0);
    const data = res.json().data;
    expect(data).toMatchObject({ status: 'succeeded', bcast: { status: 'succeeded' }, barrier: { status: 'succeeded' }, gather: { counts: { gathered: 3 } } });
    expect(data.bcast.members.map((m: any) => [m.alias, m.selected_interface.binding, m.selected_interface.dialect])).toEqual([
      ['current', 'http+json', '1.0'],
      ['v03', 'grpc', '0.3'],
      ['v02', 'json-rpc', '0.3'],
    ]);
    expect(data.reduce.reduced_text).toMatch(/^Reduced 3 input\(s\):/);
    const contextId = data.bcast.request.context_id;
    readDb(box, (db) => {
      const tasks = db.prepare(`SELECT agent_alias, state, context_id FROM tasks ORDER BY agent_alias`).all() as any[];
      expect(tasks.map((t) => [t.agent_alias, t.state])).toEqual([
        ['current', 'completed'],
        ['v02', 'completed'],
        ['v03', 'completed'],
      ]);
      // Every generation kept the one context missive gave the round.
      expect(new Set(tasks.map((t) => t.context_id))).toEqual(new Set([contextId]));
    });
  });
});
