/** The journal as a user reads it: list with filters, tail of new rows, redacted NDJSON export. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmbeddedAgent, type EmbeddedAgent } from '../../electron/core/demo/embedded-agent.js';
import { sandbox, type Sandbox } from '../support/cli.js';

let agent: EmbeddedAgent;
let box: Sandbox;
beforeAll(async () => void (agent = await startEmbeddedAgent({ behaviour: 'task' })));
afterAll(() => agent.close());
beforeEach(async () => {
  box = sandbox({ TOK: 'events-secret-778899' });
  await box.run(['agent', 'add', 'tasks', agent.baseUrl]);
});
afterEach(() => box.dispose());

describe('events', () => {
  it('lists events with type and task filters, linked to their task and context', async () => {
    const sent = (await box.run(['send', 'tasks', 'go', '--context', 'ctx-ev', '--json'])).json().data;
    const all = (await box.run(['events', 'list', '--json'])).json();
    expect(all.kind).toBe('events_list');
    expect(all.data.events.map((e: { type: string }) => e.type)).toEqual([
      'missive.agent.added',
      'a2a.agent_card.fetched',
      'a2a.send.started',
      'a2a.send.completed',
    ]);
    const completed = (await box.run(['events', 'list', '--type', 'a2a.send.completed', '--json'])).json().data.events;
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({ context_id: 'ctx-ev', task_id: sent.task.task_id, agent: 'tasks' });
    expect((await box.run(['events', 'list', '--task', sent.task.task_id, '--json'])).json().data.count).toBe(1);
    expect((await box.run(['events', 'list', '--limit', '1', '--json'])).json().data.events[0].type).toBe('a2a.send.completed');
    expect((await box.run(['events', 'list', '--since', 'yesterday-ish'])).code).toBe(64);
  });

  it('lists by agent, context and since: the newest --limit matches, oldest first', async () => {
    await box.run(['agent', 'add', 'other', 'http://127.0.0.1:9']);
    await box.run(['send', 'tasks', 'go', '--context', 'ctx-ag']);
    const list = async (...args: string[]) =>
      (await box.run(['events', 'list', ...args, '--json'])).json().data.events as Array<{ type: string; timestamp: string; context_id: string }>;
    const all = await list();
    expect((await list('--agent', 'other')).map((e) => e.type)).toEqual(['missive.agent.added']);
    expect((await list('--agent', 'tasks', '--limit', '2')).map((e) => e.type)).toEqual(['a2a.send.started', 'a2a.send.completed']);
    expect(await list('--context', 'ctx-ag')).toEqual(all.filter((e) => e.context_id === 'ctx-ag'));
    expect(await list('--since', all[2]!.timestamp)).toEqual(all.filter((e) => e.timestamp >= all[2]!.timestamp));
    expect(await list('--agent', 'tasks', '--since', '2999-01-01T00:00:00Z')).toEqual([]);
  });

  it('searches the journal as the Events view does: --search, any case, within the other filters', async () => {
    await box.run(['send', 'tasks', 'go', '--context', 'ctx-search']);
    const list = async (...args: string[]) =>
      (await box.run(['events', 'list', ...args, '--json'])).json().data.events as Array<{ type: string; context_id: string | null }>;
    expect((await list('--search', 'CTX-SEARCH')).map((e) => e.type)).toEqual(['a2a.send.started', 'a2a.send.completed']);
    expect((await list('--search', 'ctx-search', '--type', 'a2a.send.completed')).map((e) => e.context_id)).toEqual(['ctx-search']);
    expect(await list('--search', 'nothing-like-this')).toEqual([]);
    // LIKE's wildcards are the user's literal text.
    expect(await list('--search', '%')).toEqual([]);
  });

  it('tails new events as they are written', async () => {
    const tail = box.run(['events', 'tail', '--timeout', '1500ms', '--poll-interval', '100', '--ndjson']);
    await new Promise((r) => setTimeout(r, 300));
    await box.run(['agent', 'add', 'later', 'http://127.0.0.1:9']);
    const res = await tail;
    expect(res.code).toBe(0);
    const records = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ kind: 'event_record', data: { type: 'missive.agent.added', agent: 'later' } });
  });

  it('exports redacted NDJSON and refuses to overwrite without --force', async () => {
    await box.run(['send', 'tasks', 'go', '--bearer-token-env', 'TOK', '--header', 'X-Api-Key: events-secret-hdr']);
    const file = join(box.home, 'journal.ndjson');
    const res = await box.run(['events', 'export', '--output', file, '--json']);
    expect(res.code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text.trim().split('\n')).toHaveLength(res.json().data.events);
    expect(text).not.toContain('events-secret-778899');
    expect(text).not.toContain('events-secret-hdr');
    expect((await box.run(['events', 'export', '--output', file])).code).toBe(64);
    expect((await box.run(['events', 'export', '--output', file, '--force'])).code).toBe(0);
  });
});
