/** Context continuity: names usable as --context, forks, close, and a complete redacted export. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readDb, sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';

const TOKEN = 'ctx-secret-abcdef123456';
let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;

beforeAll(async () => {
  fleet = await startAgents({ echo: { behaviour: 'echo' }, tasks: { behaviour: 'task' }, chunks: { behaviour: 'chunks', chunks: 2 } });
});
afterAll(() => fleet.close());
beforeEach(async () => {
  box = sandbox({ CTX_TOKEN: TOKEN });
  await box.run(['auth', 'add', 'ctxauth', '--env', 'CTX_TOKEN']);
  await register(box, fleet.agents, ['--auth-ref', 'ctxauth']);
});
afterEach(() => box.dispose());

const withDb = <T>(fn: (d: Database.Database) => T): T => readDb(box, fn);

describe('context', () => {
  it('creates, names and resolves names on send, stream and bcast', async () => {
    const created = (await box.run(['context', 'create', '--name', 'planning', '--json'])).json().data;
    expect(created).toMatchObject({ name: 'planning', state: 'open', parent_context_id: null });
    const sent = (await box.run(['send', 'tasks', 'step one', '--context', 'planning', '--json'])).json().data;
    expect(sent.task.context_id).toBe(created.context_id);
    const streamed = (await box.run(['stream', 'chunks', 'step two', '--context', 'planning', '--json'])).json().data;
    expect(streamed.context_id).toBe(created.context_id);
    await box.run(['group', 'create', 'g', '--member', 'echo']);
    const fanned = (await box.run(['bcast', 'g', 'step three', '--context', 'planning', '--json'])).json().data;
    expect(fanned.request).toMatchObject({ context_id: created.context_id, context_created: false });
    const shown = (await box.run(['context', 'show', 'planning', '--json'])).json().data;
    expect(shown.counts).toMatchObject({ tasks: 2 });
    expect((await box.run(['context', 'name', created.context_id, 'plans', '--json'])).json().data.name).toBe('plans');
    expect((await box.run(['context', 'create', '--name', 'plans'])).code).toBe(64);
    expect((await box.run(['context', 'create', '--name', '../bad'])).code).toBe(64);
    const listed = (await box.run(['context', 'list', '--json'])).json().data.contexts;
    expect(listed.find((c: any) => c.context_id === created.context_id)).toMatchObject({ name: 'plans', tasks: 2 });
  });

  it('forks with the parent recorded, and refuses sends into a closed context', async () => {
    const parent = (await box.run(['context', 'create', '--name', 'p', '--json'])).json().data;
    const fork = (await box.run(['context', 'fork', 'p', '--name', 'child', '--json'])).json().data;
    expect(fork).toMatchObject({ name: 'child', parent_context_id: parent.context_id, metadata: { forked_from: parent.context_id } });
    expect((await box.run(['context', 'close', 'p', '--json'])).json().data).toMatchObject({ state: 'closed' });
    const refused = await box.run(['send', 'echo', 'hi', '--context', 'p']);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('Fork it to continue');
    await box.run(['group', 'create', 'g', '--member', 'echo']);
    expect((await box.run(['bcast', 'g', 'hi', '--context', 'p'])).code).toBe(64);
    expect((await box.run(['send', 'echo', 'hi', '--context', 'child'])).code).toBe(0);
    expect((await box.run(['context', 'show', 'nope'])).code).toBe(64);
  });

  it('exports messages, tasks, artifacts with parts and events, with no secret anywhere', async () => {
    await box.run(['context', 'create', '--name', 'exp']);
    await box.run(['send', 'tasks', `my token is ${TOKEN}`, '--context', 'exp']);
    await box.run(['stream', 'chunks', 'more', '--context', 'exp']);
    const res = await box.run(['context', 'export', 'exp', '--output', 'exp.json', '--json']);
    expect(res.code).toBe(0);
    const text = readFileSync(join(box.home, 'exp.json'), 'utf8');
    const doc = JSON.parse(text);
    expect(doc.schema).toBe('missive.context_export.v1');
    expect(doc.tasks).toHaveLength(2);
    expect(doc.messages.length).toBeGreaterThanOrEqual(4);
    expect(doc.artifacts.find((a: any) => a.artifact_id === 'result' && a.content.parts.length === 2)).toBeTruthy();
    expect(doc.events.map((e: any) => e.event_type)).toEqual(expect.arrayContaining(['a2a.send.started', 'a2a.stream.artifact_update']));
    expect(text).not.toContain(TOKEN);
    writeFileSync(join(box.home, 'keep.json'), 'mine');
    expect((await box.run(['context', 'export', 'exp', '--output', 'keep.json'])).code).toBe(64);
    expect(readFileSync(join(box.home, 'keep.json'), 'utf8')).toBe('mine');
    const stdout = await box.run(['context', 'export', 'exp', '--json']);
    expect(stdout.json().data.context.name).toBe('exp');
    expect(stdout.stdout).not.toContain(TOKEN);
    withDb((d) => expect(JSON.stringify(d.prepare(`SELECT * FROM messages`).all())).not.toContain(TOKEN));
  });
});
