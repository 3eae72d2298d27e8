/**
 * `gather` and `reduce` take `--from-bcast FILE|-` as `barrier` does: the context (and group) of a `bcast --json`; on
 * both stores (the embedded SQLite file and a shared PostgreSQL database).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { register, startAgents } from '../support/agents.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { STORES, storeUnderTest, type StoreUnderTest } from '../support/stores.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
let store: StoreUnderTest;
beforeAll(async () => void (fleet = await startAgents({ echo: { behaviour: 'echo' }, tasks: { behaviour: 'task' } })));
afterAll(() => fleet.close());

async function bcastFile(text: string): Promise<{ path: string; doc: string; contextId: string }> {
  const res = await box.run(['bcast', 'g', text, '--json']);
  expect(res.code).toBe(0);
  writeFileSync(join(box.home, 'b.json'), res.stdout);
  return { path: 'b.json', doc: res.stdout, contextId: res.json().data.request.context_id };
}

describe.each(STORES)('--from-bcast on gather and reduce (%s store)', (kind) => {
  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
    await register(box, fleet.agents);
    expect((await box.run(['group', 'create', 'g', '--member', 'echo', '--member', 'tasks'])).code).toBe(0);
    expect((await box.run(['group', 'create', 'other', '--member', 'echo'])).code).toBe(0);
  });
  afterEach(async () => {
    box.dispose();
    await store.release();
  });

  it('gathers and reduces the context of a bcast document, from a file or standard input', async () => {
    // An older round in another context must not leak into the one the document names.
    expect((await box.run(['bcast', 'g', 'older question'])).code).toBe(0);
    const { path, doc, contextId } = await bcastFile('status?');

    const gathered = await box.run(['gather', 'g', '--from-bcast', path, '--json']);
    expect(gathered.code, gathered.stderr).toBe(0);
    expect(gathered.json().data.context_id).toBe(contextId);
    expect(gathered.json().data.members.map((m: { text: string }) => m.text)).toEqual(['echo: status?', 'done: status?']);

    const reduced = await box.run(['reduce', 'g', '--from-bcast', '-', '--strategy', 'vote', '--json'], { stdin: doc });
    expect(reduced.code, reduced.stderr).toBe(0);
    expect(reduced.json().data).toMatchObject({ context_id: contextId, strategy: 'vote', counts: { inputs: 2 } });

    const human = await box.run(['gather', 'g', '--from-bcast', path]);
    expect(human.stdout).toContain(`context \`${contextId}\``);
  });

  it('refuses a document of another group or context, a non-bcast file, and a missing context (exit 64)', async () => {
    const { path, contextId } = await bcastFile('status?');
    const refused = async (args: string[], code: string) => {
      const res = await box.run([...args, '--json']);
      expect(res.code, res.stdout).toBe(64);
      expect(JSON.parse(res.stderr).data.code).toBe(code);
    };
    await refused(['gather', 'other', '--from-bcast', path], 'missive::validation::bcast_group_mismatch');
    await refused(['reduce', 'other', '--from-bcast', path], 'missive::validation::bcast_group_mismatch');
    await refused(['gather', 'g', '--from-bcast', path, '--context', 'elsewhere'], 'missive::validation::bcast_context_mismatch');
    writeFileSync(join(box.home, 'not.json'), '{"hello": 1}');
    await refused(['gather', 'g', '--from-bcast', 'not.json'], 'missive::validation::invalid_bcast_document');
    await refused(['reduce', 'g', '--from-bcast', 'missing.json'], 'missive::validation::bcast_unreadable');
    await refused(['gather', 'g'], 'missive::validation::context_required');
    await refused(['reduce', 'g'], 'missive::validation::context_required');
    expect((await box.run(['gather', 'g', '--from-bcast', path, '--context', contextId])).code).toBe(0);
  });

  it('documents the flag in --help', async () => {
    for (const cmd of ['gather', 'reduce']) {
      const help = await box.run([cmd, '--help']);
      expect(help.stdout).toMatch(/--from-bcast <path\|->/);
      expect(help.stdout).not.toMatch(/required option/);
    }
  });
});
