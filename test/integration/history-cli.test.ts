/**
 * The journal's request history from the command line, the same service as the desktop History view:
 * `missive history list|show` (with the command that runs a request again) and `missive context thread`. On both
 * stores: the embedded SQLite file and a shared PostgreSQL database (team mode).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { missiveArgs } from '../../shared/copy-as.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { startAgents } from '../support/agents.js';
import { STORES, storeUnderTest, type StoreUnderTest } from '../support/stores.js';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let box: Sandbox;
let store: StoreUnderTest;

beforeAll(
  async () => void (fleet = await startAgents({ echo: { behaviour: 'echo' }, tasks: { behaviour: 'task' }, chunks: { behaviour: 'chunks', chunks: 3 } })),
);
afterAll(() => fleet.close());

describe.each(STORES)('on the %s store', (kind) => {
  beforeEach(async () => {
    store = await storeUnderTest(kind);
    box = sandbox(store.env);
    for (const alias of ['echo', 'tasks', 'chunks'] as const) expect((await box.run(['agent', 'add', alias, fleet.agents[alias]!.baseUrl])).code).toBe(0);
  });
  afterEach(async () => {
    box.dispose();
    await store.release();
  });

  describe('missive history', () => {
    it('lists sends and streams newest first, with outcomes, filters and pages', async () => {
      // An agent whose card is cached, then stopped: the request leaves and fails.
      const gone = await startAgents({ gone: { behaviour: 'echo' } });
      await box.run(['agent', 'add', 'gone', gone.agents.gone!.baseUrl]);
      await box.run(['agent', 'inspect', 'gone']);
      await gone.close();
      await box.run(['send', 'echo', 'first question']);
      await box.run(['stream', 'chunks', 'a story']);
      expect((await box.run(['send', 'gone', 'anyone?'])).code).toBe(69);
      const page = (await box.run(['history', 'list', '--json'])).json().data;
      expect(page.entries.map((e: any) => [e.operation, e.agent_alias, e.outcome])).toEqual([
        ['send', 'gone', 'failed'],
        ['stream', 'chunks', 'completed'],
        ['send', 'echo', 'completed'],
      ]);
      expect(page.entries[2]).toMatchObject({ request_text: 'first question', answer_text: 'echo: first question' });
      expect(page.entries[0].error.code).toBe('missive::transport::connection_refused');
      expect((await box.run(['history', 'list', '--operation', 'stream', '--json'])).json().data.entries).toHaveLength(1);
      expect((await box.run(['history', 'list', '--agent', 'echo', '--json'])).json().data.entries.map((e: any) => e.request_text)).toEqual(['first question']);
      const first = (await box.run(['history', 'list', '--limit', '2', '--json'])).json().data;
      expect(first.entries).toHaveLength(2);
      const rest = (await box.run(['history', 'list', '--limit', '2', '--before', String(first.next_before_sequence), '--json'])).json().data;
      expect(rest.entries.map((e: any) => e.agent_alias)).toEqual(['echo']);
      expect(rest.next_before_sequence).toBeNull();

      const human = await box.run(['history', 'list']);
      expect(human.stdout).toMatch(/STARTED\s+OP\s+AGENT\s+OUTCOME/);
      expect(human.stdout).toContain('echo: first question');
      expect(human.stdout).toContain('missive::transport::connection_refused');
      expect((await box.run(['history', 'list', '--operation', 'sent'])).code).toBe(64);
    });

    it('shows one request with the command that sends it again, and that command works', async () => {
      await box.run(['send', 'echo', "it's a 'quoted' $question", '--context', 'ctx-h']);
      const [entry] = (await box.run(['history', 'list', '--json'])).json().data.entries;
      const shown = (await box.run(['history', 'show', entry.message_id, '--json'])).json().data;
      expect(shown.entry.inputs).toMatchObject({ text: "it's a 'quoted' $question", contextId: 'ctx-h' });
      expect(shown.rerun).toMatch(/^missive send echo --context ctx-h .*'it'\\''s a '\\''quoted'\\'' \$question'$/);
      const again = await box.run([...missiveArgs({ operation: 'send', agent: 'echo', inputs: shown.entry.inputs }), '--json']);
      expect(again.json().data.response.message.parts[0].text).toBe("echo: it's a 'quoted' $question");
      expect((await box.run(['history', 'list', '--json'])).json().data.entries).toHaveLength(2);

      // A unique prefix of the message id names it as well.
      expect((await box.run(['history', 'show', entry.message_id.slice(0, 8), '--json'])).json().data.entry.message_id).toBe(entry.message_id);
      const human = (await box.run(['history', 'show', entry.message_id])).stdout;
      expect(human).toContain("echo: it's a 'quoted' $question");
      expect(human).toContain('run again: missive send echo');
      const unknown = await box.run(['history', 'show', 'no-such-message']);
      expect(unknown.code).toBe(64);
      expect(unknown.stderr).toContain('no send or stream with message id "no-such-message"');
      expect(unknown.stderr).toContain('missive history list');
      expect(JSON.parse((await box.run(['history', 'show', 'no-such-message', '--json'])).stderr).data.code).toBe('missive::validation::unknown_request');
    });
  });

  describe('missive context thread', () => {
    it('files a conversation the agent started under its context: the journal, the thread and events --context agree', async () => {
      const sent = (await box.run(['send', 'echo', 'who starts this?', '--json'])).json().data;
      const contextId = sent.response.message.contextId as string;
      expect(contextId).toEqual(expect.any(String));
      const events = (await box.run(['events', 'list', '--context', contextId, '--json'])).json().data.events;
      expect(events.map((e: any) => e.type)).toEqual(['a2a.send.completed']);
      const thread = (await box.run(['context', 'thread', contextId, '--json'])).json().data;
      expect(thread.items.map((i: any) => i.text)).toEqual(['who starts this?', 'echo: who starts this?']);
    });

    it('reads a context as a conversation with its artifacts', async () => {
      await box.run(['context', 'create', '--name', 'launch']);
      await box.run(['send', 'echo', 'hello there', '--context', 'launch']);
      await box.run(['send', 'tasks', 'make a file', '--context', 'launch']);
      const thread = (await box.run(['context', 'thread', 'launch', '--json'])).json().data;
      expect(thread.items.map((i: any) => i.kind)).toContain('artifact');
      expect(thread.items.filter((i: any) => i.kind === 'message' && i.direction === 'request').map((i: any) => i.text)).toEqual([
        'hello there',
        'make a file',
      ]);
      const human = (await box.run(['context', 'thread', 'launch'])).stdout;
      expect(human.indexOf('hello there')).toBeLessThan(human.indexOf('echo: hello there'));
      expect(human.indexOf('echo: hello there')).toBeLessThan(human.indexOf('make a file'));
      expect(human).toMatch(/artifact result\.txt v1|artifact result v1/);
    });
  });
});
