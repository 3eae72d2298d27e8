/**
 * Where `missive mock serve` gets its recording (electron/core/mock/load-recording.ts): a conversation recorded from a
 * real SDK agent through the CLI (a streamed story in 3 chunks, an `input_required` turn and its completion, an echo)
 * reads the same from the context in the journal, from a `context export` file and from `history show --json` output.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { recordConversation, RECORDING_TOKEN, RECORDING_TOKEN_ENV, STORY_CHUNKS, TEXTS, type RecordedConversation } from '../support/recorded-conversation.js';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { loadRecording } from '../../electron/core/mock/load-recording.js';
import type { Recording, RecordingSource } from '../../electron/core/mock/recording.js';

let box: Sandbox;
let core: Core;
let conversation: RecordedConversation;
/** history show --json of each request, in the order `history list` gives them (newest first). */
let shows: string[];

const coreOf = (home: string) => createCore({ env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH }, cwd: home, secrets: createMemorySecretStore() });

beforeAll(async () => {
  box = sandbox();
  conversation = await recordConversation(box);
  const exported = await box.run(['context', 'export', conversation.contextId, '--output', 'conversation.json']);
  expect(exported.code, exported.stderr).toBe(0);
  writeFileSync(join(box.home, 'envelope.json'), (await box.run(['context', 'export', conversation.contextId, '--json'])).stdout);
  const list = (await box.run(['history', 'list', '--json'])).json().data.entries as Array<{ message_id: string }>;
  shows = [];
  for (const e of list) shows.push((await box.run(['history', 'show', e.message_id, '--ndjson'])).stdout.trim());
  writeFileSync(join(box.home, 'history.ndjson'), `${shows.join('\n')}\n`);
  writeFileSync(join(box.home, 'history.json'), JSON.stringify(shows.map((s) => JSON.parse(s))));
  core = coreOf(box.home);
});

afterAll(async () => {
  core?.close();
  await conversation?.close();
  box?.dispose();
});

const load = (source: RecordingSource, on = core, cwd = box.home) => loadRecording(on, source, cwd);

const stateOf = (body: Record<string, any>) => body.status?.state;
const artifactTexts = (body: Record<string, any>) => (body.artifacts ?? []).flatMap((a: any) => a.parts.map((p: any) => p.text));

describe('loadRecording', () => {
  it('reads the same exchanges from the context, from its `context export` file and from `history show --json` output', async () => {
    const fromContext = await load({ context: conversation.contextId });
    const fromExport = await load({ export: 'conversation.json' });
    const fromEnvelope = await load({ export: 'envelope.json' });
    const fromNdjson = await load({ history: 'history.ndjson' });
    const fromArray = await load({ history: join(box.home, 'history.json') });
    expect(fromExport.exchanges).toEqual(fromContext.exchanges);
    expect(fromEnvelope.exchanges).toEqual(fromContext.exchanges);
    expect(fromNdjson.exchanges).toEqual(fromContext.exchanges);
    expect(fromArray.exchanges).toEqual(fromContext.exchanges);
    expect([fromContext.source, fromExport.source, fromNdjson.source]).toEqual([
      `context ${conversation.contextId}`,
      'export conversation.json',
      'history history.ndjson',
    ]);
    expect(fromContext.agent).toBe('storyteller');

    const [story, ask, reply, hello] = fromContext.exchanges;
    expect(fromContext.exchanges.map((e) => [e.index, e.operation, e.text])).toEqual([
      [0, 'stream', TEXTS.stream],
      [1, 'send', TEXTS.ask],
      [2, 'send', TEXTS.reply],
      [3, 'send', TEXTS.hello],
    ]);
    // The stream: every event in order, the artifact in its 3 appended chunks, then the completion.
    expect(story!.events.map((e) => e.kind)).toEqual(['task', 'status_update', 'artifact_update', 'artifact_update', 'artifact_update', 'status_update']);
    const chunks = story!.events.filter((e) => e.kind === 'artifact_update').map((e) => e.body);
    expect(chunks.map((c) => c.artifact.parts[0].text)).toEqual(STORY_CHUNKS);
    expect(chunks.map((c) => [c.append === true, c.lastChunk === true])).toEqual([
      [false, false],
      [true, false],
      [true, true],
    ]);
    expect(stateOf(story!.events.at(-1)!.body)).toBe('TASK_STATE_COMPLETED');
    expect(story!.events.map((e) => e.offset_ms)).toEqual([...story!.events.map((e) => e.offset_ms)].sort((a, b) => a - b));
    // The input_required turn as it was answered, then the reply in the same task completing it.
    expect(ask!.events).toHaveLength(1);
    expect(ask!.events[0]!.kind).toBe('task');
    expect(stateOf(ask!.events[0]!.body)).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(ask!.events[0]!.body.status.message.parts[0].text).toBe('What name should I use?');
    expect(artifactTexts(ask!.events[0]!.body)).toEqual([]);
    expect(reply!.request.taskId).toBe(conversation.taskIds.ask);
    expect(stateOf(reply!.events[0]!.body)).toBe('TASK_STATE_COMPLETED');
    expect(artifactTexts(reply!.events[0]!.body)).toEqual(['Hello, Ada!']);
    // The completed task with its echo.
    expect(hello!.events.map((e) => [e.kind, stateOf(e.body), artifactTexts(e.body)])).toEqual([['task', 'TASK_STATE_COMPLETED', ['echo: hello']]]);
    expect(fromContext.exchanges.every((e) => !e.error && !e.callbacks)).toBe(true);

    // The card: the agent's cached one for a context; a file without one has none.
    expect(fromContext.card?.name).toBe('storyteller');
    expect(fromExport.card).toBeNull();
  });

  it('reads a history file from another profile from the file alone: each answer as it ended, a continued task as waiting for input', async () => {
    const other = sandbox();
    const otherCore = coreOf(other.home);
    try {
      const recording = await load({ history: join(box.home, 'history.ndjson') }, otherCore, other.home);
      expect(recording.card).toBeNull();
      expect(recording.exchanges.map((e) => [e.operation, e.text, e.events.map((ev) => [ev.kind, stateOf(ev.body)])])).toEqual([
        ['stream', TEXTS.stream, [['task', 'TASK_STATE_COMPLETED']]],
        ['send', TEXTS.ask, [['task', 'TASK_STATE_INPUT_REQUIRED']]],
        ['send', TEXTS.reply, [['task', 'TASK_STATE_COMPLETED']]],
        ['send', TEXTS.hello, [['task', 'TASK_STATE_COMPLETED']]],
      ]);
      expect(artifactTexts(recording.exchanges[0]!.events[0]!.body).join('')).toBe(STORY_CHUNKS.join(''));
    } finally {
      otherCore.close();
      other.dispose();
    }
  });

  it('refuses a file that is not a context export, naming the file and what it expected', async () => {
    writeFileSync(join(box.home, 'not-export.json'), JSON.stringify({ hello: 'world' }));
    writeFileSync(join(box.home, 'not-json.txt'), 'just some words\n');
    const refused = async (source: RecordingSource) =>
      load(source).then(
        () => expect.fail('loaded'),
        (error) => error,
      );

    const notExport = await refused({ export: 'not-export.json' });
    expect(notExport.code).toBe('missive::data::not_a_context_export');
    expect(notExport.exitCode).toBe(65);
    expect(notExport.message).toMatch(/^not-export\.json is not a context export: expected a `missive context export` document/);
    expect(notExport.message).toContain('missive.context_export.v1');

    // A history file given as an export, and the other way round.
    expect((await refused({ export: 'history.json' })).code).toBe('missive::data::not_a_context_export');
    const exportAsHistory = await refused({ history: 'conversation.json' });
    expect(exportAsHistory.code).toBe('missive::data::not_a_history_file');
    expect(exportAsHistory.message).toMatch(/^conversation\.json is not a history entry: expected the output of `missive history show <message-id> --json`/);

    const notJson = await refused({ export: 'not-json.txt' });
    expect(notJson.code).toBe('missive::data::not_a_context_export');
    expect(notJson.message).toMatch(/^not-json\.txt is not JSON/);

    const missing = await refused({ export: 'nowhere.json' });
    expect(missing.code).toBe('missive::validation::recording_unreadable');
    expect(missing.message).toMatch(/^cannot read nowhere\.json/);

    const unknown = await refused({ context: 'no-such-context' });
    expect(unknown.code).toBe('missive::validation::unknown_context');
  });

  it('holds no bearer token in any recording, even one the user typed and the agent echoed', async () => {
    const env = { [RECORDING_TOKEN_ENV]: RECORDING_TOKEN };
    const sent = await box.run(['send', conversation.alias, `hello ${RECORDING_TOKEN}`, '--context', conversation.contextId, '--json'], { env });
    expect(sent.code, sent.stderr).toBe(0);
    const id = sent.json().data.request.message_id;
    // One pretty-printed envelope, as `history show --json` prints it.
    writeFileSync(join(box.home, 'leak.json'), (await box.run(['history', 'show', id, '--json'])).stdout);
    expect((await box.run(['context', 'export', conversation.contextId, '--output', 'leak-export.json'])).code).toBe(0);

    const recordings: Recording[] = [
      await load({ context: conversation.contextId }),
      await load({ export: 'leak-export.json' }),
      await load({ history: 'leak.json' }),
    ];
    for (const recording of recordings) {
      const last = recording.exchanges.at(-1)!;
      expect(last.text).toMatch(/^hello /);
      expect(artifactTexts(last.events[0]!.body)[0]).toMatch(/^echo: hello /);
      expect(JSON.stringify(recording)).not.toContain(RECORDING_TOKEN);
    }
  });
});
