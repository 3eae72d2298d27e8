/**
 * Agent health and "refresh all" as the Agents view shows them, through the IPC registry: a healthy agent, one that
 * stopped (unreachable, with the error code), one never contacted; refreshing all with agents down still refreshes
 * the others, health reflects the refresh at once, and no more than four card fetches run at the same time. On both
 * stores: the embedded SQLite file and a shared PostgreSQL database (team mode), where health reads each agent's last
 * calls through idx_events_calls as SQLite does.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Core } from '../../electron/core/handle.js';
import type { Registry } from '../../electron/core/ipc/registry.js';
import { newestCallEventsSql } from '../../electron/core/store/postgres/repos/call-events.js';
import type { AgentHealth } from '../../shared/ipc/contract.js';
import { closedPortUrl, startAgents } from '../support/agents.js';
import { json, minimalCard, startRawServer } from '../support/raw-server.js';
import { STORES, registryOnStoreEach, type StoreKindUnderTest, type StoreUnderTest } from '../support/stores.js';

let core: Core;
let registry: Registry;
let store: StoreUnderTest;

async function call(channel: string, input: unknown): Promise<any> {
  const result = await registry.invoke(channel, input);
  if (!result.ok) throw new Error(`${channel}: ${JSON.stringify(result.error)}`);
  return result.data;
}

const healthOf = async (alias: string): Promise<AgentHealth> => (await call('agents.health', {})).agents.find((a: AgentHealth) => a.alias === alias);

/** A core and the IPC registry on a fresh store of `kind`, for each test of the describe block it is called in. */
const onStore = (kind: StoreKindUnderTest) => registryOnStoreEach(kind, (opened) => ({ core, registry, store } = opened));

describe.each(STORES)('on the %s store', (kind) => {
  onStore(kind);

  describe('agent health', () => {
    it('shows a single card refresh that failed (agents.inspect, agent inspect --refresh) as unreachable', async () => {
      const fleet = await startAgents({ lone: { behaviour: 'echo' } });
      await call('agents.add', { alias: 'lone', baseUrl: fleet.agents.lone!.baseUrl });
      await call('agents.inspect', { alias: 'lone', refresh: true });
      expect(await healthOf('lone')).toMatchObject({ reachable: true, last_error: null });
      await fleet.close();
      const refreshed = await registry.invoke('agents.inspect', { alias: 'lone', refresh: true });
      expect(refreshed).toMatchObject({ ok: false, error: { code: 'missive::transport::connection_refused' } });
      expect(await healthOf('lone')).toMatchObject({ reachable: false, last_error: { code: 'missive::transport::connection_refused' } });
    });

    it('counts an error the agent answered with as reachable, and a later success clears the failure', async () => {
      const raw = await startRawServer();
      let cardStatus = 500;
      raw.route('/.well-known/agent-card.json', (_req, res) =>
        cardStatus === 200 ? json(res, 200, minimalCard(raw.url)) : json(res, cardStatus, { error: 'nope' }),
      );
      try {
        await call('agents.add', { alias: 'flaky', baseUrl: raw.url });
        cardStatus = 404;
        const [refused] = (await call('agents.refreshAll', {})).agents;
        expect(refused).toMatchObject({ alias: 'flaky', ok: false, error: { code: 'missive::protocol::no_agent_card' } });
        expect(await healthOf('flaky')).toMatchObject({ reachable: true, last_ok_at: null, last_error: { code: 'missive::protocol::no_agent_card' } });
        cardStatus = 200;
        expect((await call('agents.refreshAll', {})).agents).toEqual([
          { alias: 'flaky', ok: true, latency_ms: expect.any(Number), status: 'fetched', error: null },
        ]);
        expect(await healthOf('flaky')).toMatchObject({
          reachable: true,
          last_ok_at: expect.any(String),
          card_fetched_at: expect.any(String),
          last_error: { code: 'missive::protocol::no_agent_card' },
        });
      } finally {
        await raw.close();
      }
    });

    it("reads each agent's newest call of each kind, however much else the journal holds", async () => {
      for (const alias of ['steady', 'fading', 'quiet']) await call('agents.add', { alias, baseUrl: await closedPortUrl() });
      const { journal } = await core.storage();
      const failure = (message: string, category: string) => ({ error: { code: `missive::${category}::x_${message}`, message, category } });
      await journal.append({ type: 'a2a.send.failed', agentAlias: 'steady', payload: failure('refused at first', 'transport') });
      await journal.append({ type: 'a2a.send.failed', agentAlias: 'fading', payload: failure('old failure', 'protocol') });
      await journal.append({ type: 'a2a.send.completed', agentAlias: 'fading', payload: {} });
      // A busy stream's events (not calls) and an unregistered agent's calls come in between.
      for (let i = 0; i < 50; i++) await journal.append({ type: 'a2a.stream.status', agentAlias: 'fading', payload: { i } });
      await journal.append({ type: 'a2a.send.failed', agentAlias: 'gone', payload: failure('not ours', 'transport') });
      await journal.append({ type: 'a2a.stream.completed', agentAlias: 'steady', payload: {} });
      await journal.append({ type: 'a2a.send.failed', agentAlias: 'fading', payload: failure('newer failure', 'protocol') });
      await journal.append({ type: 'a2a.agent_card.failed', agentAlias: 'fading', payload: failure('newest failure', 'transport') });

      const health = Object.fromEntries(((await call('agents.health', {})).agents as AgentHealth[]).map((h) => [h.alias, h]));
      expect(Object.keys(health)).toEqual(['fading', 'quiet', 'steady']);
      // The last call worked: reachable, though an older one failed.
      expect(health.steady).toMatchObject({ reachable: true, last_ok_at: expect.any(String), last_error: { code: 'missive::transport::x_refused at first' } });
      // The newest failure of every kind of call is the one shown; it is newer than the success, and a transport one.
      expect(health.fading).toMatchObject({
        reachable: false,
        last_ok_at: expect.any(String),
        last_error: { code: 'missive::transport::x_newest failure', message: 'newest failure' },
      });
      expect(health.quiet).toMatchObject({ reachable: null, last_ok_at: null, last_error: null });
    });
  });

  describe('refresh all', () => {
    it('refreshes every agent though some are down, and health shows each result right after', async () => {
      const fleet = await startAgents({ one: { behaviour: 'echo' }, two: { behaviour: 'task' }, down: { behaviour: 'echo' } });
      try {
        for (const alias of ['one', 'two', 'down'] as const) await call('agents.add', { alias, baseUrl: fleet.agents[alias]!.baseUrl });
        await call('agents.add', { alias: 'nowhere', baseUrl: await closedPortUrl() });
        await call('agents.inspect', { alias: 'down' });
        await fleet.agents.down!.close();

        const { agents } = await call('agents.refreshAll', {});
        expect(agents.map((a: { alias: string; ok: boolean }) => [a.alias, a.ok])).toEqual([
          ['down', false],
          ['nowhere', false],
          ['one', true],
          ['two', true],
        ]);
        expect(agents.find((a: { alias: string }) => a.alias === 'down').error).toMatchObject({
          code: 'missive::transport::connection_refused',
          message: expect.stringMatching(/refused/),
        });
        expect(agents.find((a: { alias: string }) => a.alias === 'one')).toMatchObject({ status: 'fetched', error: null, latency_ms: expect.any(Number) });

        const health = (await call('agents.health', {})).agents as AgentHealth[];
        const view = Object.fromEntries(health.map((h) => [h.alias, [h.reachable, h.last_error?.code ?? null]]));
        expect(view).toEqual({
          down: [false, 'missive::transport::connection_refused'],
          nowhere: [false, 'missive::transport::connection_refused'],
          one: [true, null],
          two: [true, null],
        });
        // The refresh is journaled like any card fetch: the journal's readers (events list, the Events view) show the failures too.
        const failures = await (await core.storage()).journalReads.list({ type: 'a2a.agent_card.failed' });
        expect(failures.map((e) => e.agentAlias).sort()).toEqual(['down', 'nowhere']);
      } finally {
        await fleet.close();
      }
    });

    it('fetches at most four cards at once', async () => {
      const raw = await startRawServer();
      const AGENTS = 7;
      let inFlight = 0;
      let peak = 0;
      let served = 0;
      const waiting: Array<() => void> = [];
      // Each card request is held until four are in flight (or every remaining one is), and a moment longer, so a
      // fifth fetch started too early would be in flight with them: the peak shows the limit.
      raw.route('/.well-known/agent-card.json', async (_req, res) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        const held = new Promise<void>((resolve) => waiting.push(resolve));
        if (inFlight >= 4 || served + inFlight >= AGENTS) setTimeout(() => waiting.splice(0).forEach((release) => release()), 50);
        await held;
        inFlight--;
        served++;
        json(res, 200, minimalCard(raw.url));
      });
      try {
        for (let i = 0; i < AGENTS; i++) await call('agents.add', { alias: `peer${i}`, baseUrl: raw.url });
        const { agents } = await call('agents.refreshAll', {});
        expect(agents.map((a: { ok: boolean }) => a.ok)).toEqual(Array(AGENTS).fill(true));
        expect(peak).toBe(4);
      } finally {
        waiting.splice(0).forEach((release) => release());
        await raw.close();
      }
    });
  });
});

// Sends need the SQLite store for now (store/team-scope.ts): this one sends, then reads what the sends journaled.
describe('on the sqlite store only', () => {
  onStore('sqlite');
  it('tells a healthy agent, a stopped one (with the error) and one never contacted apart', async () => {
    const fleet = await startAgents({ healthy: { behaviour: 'echo' }, stopped: { behaviour: 'echo' } });
    try {
      await call('agents.add', { alias: 'healthy', baseUrl: fleet.agents.healthy!.baseUrl });
      await call('agents.add', { alias: 'stopped', baseUrl: fleet.agents.stopped!.baseUrl });
      await call('agents.add', { alias: 'never', baseUrl: await closedPortUrl() });
      expect(await healthOf('healthy')).toEqual({
        alias: 'healthy',
        card_fetched_at: null,
        card_validated_at: null,
        last_ok_at: null,
        last_error: null,
        reachable: null,
        interface_problem: null,
      });

      await call('messages.send', { agent: 'healthy', inputs: { text: 'ping' } });
      await call('messages.send', { agent: 'stopped', inputs: { text: 'ping' } });
      await fleet.agents.stopped!.close();
      const failed = await registry.invoke('messages.send', { agent: 'stopped', inputs: { text: 'still there?' } });
      expect(failed).toMatchObject({ ok: false, error: { code: 'missive::transport::connection_refused' } });

      const healthy = await healthOf('healthy');
      expect(healthy).toMatchObject({ reachable: true, last_error: null, card_fetched_at: expect.any(String), last_ok_at: expect.any(String) });
      expect(healthy.last_ok_at! >= healthy.card_fetched_at!).toBe(true);
      const stopped = await healthOf('stopped');
      expect(stopped).toMatchObject({
        reachable: false,
        card_fetched_at: expect.any(String),
        last_ok_at: expect.any(String),
        last_error: { code: 'missive::transport::connection_refused' },
      });
      expect(stopped.last_error!.message).toMatch(/refused the connection/);
      expect(stopped.last_error!.at >= stopped.last_ok_at!).toBe(true);
      expect(await healthOf('never')).toMatchObject({ reachable: null, card_fetched_at: null, last_ok_at: null, last_error: null });
    } finally {
      await fleet.close();
    }
  });
});

describe('on the postgres store only', () => {
  onStore('postgres');
  it('reads the last calls by idx_events_calls on PostgreSQL, one seek per agent and kind of call', async () => {
    await call('agents.add', { alias: 'busy', baseUrl: await closedPortUrl() });
    await (await core.storage()).journal.append({ type: 'a2a.send.completed', agentAlias: 'busy', payload: {} });
    const pool = new pg.Pool({ connectionString: store.env.MISSIVE_STORE_URL, options: '-c search_path=missive_default', max: 1 });
    try {
      // 100,000 stream events of the agent (outside the partial index) and a few calls: a walk of the agent's events
      // (idx_events_agent) would read through the stream to find the calls.
      await pool.query(
        `INSERT INTO events (event_id, event_type, agent_alias, payload_json)
        SELECT 'e-' || i, CASE WHEN i % 10000 = 0 THEN 'a2a.send.failed' ELSE 'a2a.stream.status' END, 'busy', $1 FROM generate_series(1, 100000) AS i`,
        [JSON.stringify({ error: { code: 'missive::transport::connection_refused', message: 'refused', category: 'transport' } })],
      );
      await pool.query('ANALYZE events');
      const types = ['a2a.send.completed', 'a2a.send.failed', 'a2a.agent_card.fetched'];
      const plan = (await pool.query(`EXPLAIN ${newestCallEventsSql}`, [['busy', 'other'], types])).rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toMatch(/Index Scan Backward using idx_events_calls on events/);
      expect(plan).not.toMatch(/Seq Scan|Sort/);
    } finally {
      await pool.end();
    }
    expect(await healthOf('busy')).toMatchObject({
      reachable: false,
      last_ok_at: expect.any(String),
      last_error: { code: 'missive::transport::connection_refused' },
    });
  });
});
