/**
 * `missive mock record <alias> --to FILE` (the built CLI, spawned) proxies a live @a2a-js/sdk agent behind a bearer
 * token: missive's clients talk to the proxy, the proxy forwards through missive's own send / stream with the agent's
 * credentials, and FILE (a `context export`, rewritten after each exchange) replays through `mock serve --from-export`
 * once the live agent is gone. The token reaches neither the proxy's answers nor the file.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { eventually } from '../support/waits.js';
import { RECORDING_TOKEN, RECORDING_TOKEN_ENV, STORY_CHUNKS, TEXTS, startStorytellerPeer, type StorytellerPeer } from '../support/recorded-conversation.js';
import { postJsonRpcSend } from '../support/raw-send.js';
import { spawnMock, type MockProcess, type MockServeData } from '../support/mock-process.js';

let box: Sandbox;
let peer: StorytellerPeer;
let file: string;
/** The environment of the CLI's runs: the proxy's bearer token, once the proxy is up, for the auth ref `proxy-bearer`. */
let env: NodeJS.ProcessEnv = {};

const ok = async (args: string[]) => {
  const res = await box.run([...args, '--json'], { env });
  expect(res.code, `missive ${args.join(' ')}: ${res.stderr}`).toBe(0);
  return res.json().data;
};

/** The recorded conversation, through `alias`: the story streamed, a question and its reply, an echo. */
async function converse(alias: string) {
  const streamed = await ok(['stream', alias, TEXTS.stream]);
  const story = await ok(['task', 'artifact', 'show', streamed.task.task_id, 'story']);
  const asked = await ok(['send', alias, TEXTS.ask]);
  const replied = await ok(['send', alias, TEXTS.reply, '--task', asked.task.task_id, '--context', asked.task.context_id]);
  const greeting = await ok(['task', 'artifact', 'show', asked.task.task_id, 'greeting']);
  const hello = await ok(['send', alias, TEXTS.hello]);
  return {
    stream: [streamed.task.state, streamed.counts.artifact_update, story.content.parts.map((p: { text: string }) => p.text).join('')],
    ask: [asked.task.state, asked.response.task.status.message.parts[0].text],
    reply: [replied.task.task_id === asked.task.task_id, replied.task.state, greeting.content.parts[0].text],
    hello: [hello.task.state, hello.response.task.artifacts[0].parts[0].text],
  };
}

const EXPECTED = {
  stream: ['completed', 3, STORY_CHUNKS.join('')],
  ask: ['input_required', 'What name should I use?'],
  reply: [true, 'completed', `Hello, ${TEXTS.reply}!`],
  hello: ['completed', `echo: ${TEXTS.hello}`],
};

beforeAll(async () => {
  box = sandbox();
  peer = await startStorytellerPeer();
  file = join(box.home, 'storyteller.recording.json');
  for (const args of [
    ['auth', 'add', 'rec-token', '--env', RECORDING_TOKEN_ENV],
    ['agent', 'add', 'storyteller', peer.baseUrl, '--auth-ref', 'rec-token'],
  ]) {
    const res = await box.run(args);
    expect(res.code, res.stderr).toBe(0);
  }
}, 30_000);
afterAll(async () => {
  await peer.close().catch(() => undefined);
  box.dispose();
});

describe('mock record, then mock serve --from-export', () => {
  let recorder: MockProcess<{ url: string; bearer: string; context_id: string; path: string }>;
  beforeAll(async () => {
    recorder = await spawnMock(box, ['mock', 'record', 'storyteller', '--to', file], { [RECORDING_TOKEN_ENV]: RECORDING_TOKEN });
    env = { MOCK_PROXY_BEARER: recorder.data.bearer };
    await ok(['auth', 'add', 'proxy-bearer', '--env', 'MOCK_PROXY_BEARER']);
    await ok(['agent', 'add', 'proxy', recorder.data.url, '--auth-ref', 'proxy-bearer']);
  }, 30_000);

  it('serves only clients holding its token: the proxy calls the agent with the user credentials', async () => {
    const before = peer.received();
    const card = await (await fetch(`${recorder.data.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json();
    // The card asks for a bearer token (the SDK server writes the scheme in its own oneof form, as for every SDK agent).
    expect(JSON.stringify(card.securitySchemes)).toContain('"scheme":"Bearer"');
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }]);
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${recorder.data.bearer}x`]) {
      const res = await postJsonRpcSend(`${recorder.data.url}/a2a/jsonrpc`, TEXTS.hello, authorization ? { authorization } : {});
      expect(res.status, String(authorization)).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
    const noToken = await box.run(['send', recorder.data.url, TEXTS.hello, '--json']);
    expect(noToken.code).toBe(77);
    expect(peer.received()).toBe(before);
  });

  it('refuses to overwrite an existing file without --force, before it listens', async () => {
    const taken = join(box.home, 'taken.json');
    writeFileSync(taken, '{}');
    const res = await box.run(['mock', 'record', 'storyteller', '--to', taken, '--json']);
    expect(res.code).toBe(64);
    expect(JSON.parse(res.stderr).data.code).toBe('missive::validation::output_exists');
    expect(readFileSync(taken, 'utf8')).toBe('{}');
  });
  afterAll(() => recorder.process.kill());

  it('proxies the live agent with its credentials, rewriting the file after each exchange', async () => {
    expect(recorder.data.path).toBe(file);
    expect(await converse('proxy')).toEqual(EXPECTED);
    const doc = await eventually(
      'the export to hold the four exchanges',
      () => {
        const read = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
        return read && read.messages.filter((m: { direction: string }) => m.direction === 'request').length === 4 ? read : null;
      },
      10_000,
    );
    expect(doc.schema).toBe('missive.context_export.v1');
    expect(doc.context.context_id).toBe(recorder.data.context_id);
  });

  it('stops on SIGTERM with the count, and its file, without the token, replays without the live agent', async () => {
    const stopped = await recorder.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.after.find((d) => d.kind === 'mock_recorded')!.data).toMatchObject({ exchanges: 4, path: file });
    expect(readFileSync(file, 'utf8')).not.toContain(RECORDING_TOKEN);
    expect(stopped.stderr).not.toContain(RECORDING_TOKEN);

    await peer.close();
    const mock = await spawnMock<MockServeData>(box, ['mock', 'serve', '--from-export', file, '--latency', 'none', '--strict']);
    try {
      expect(mock.data).toMatchObject({ agent: 'storyteller', exchanges: 4 });
      // The file carries the agent's card: the mock serves it (pointed at itself), skills and all.
      const card = await (await fetch(mock.data.card_url, { headers: { 'A2A-Version': '1.0' } })).json();
      expect(card).toMatchObject({ name: 'storyteller', skills: [{ id: 'story' }] });
      await ok(['agent', 'add', 'replayed', mock.data.url]);
      expect(await converse('replayed')).toEqual(EXPECTED);
    } finally {
      const done = await mock.stop();
      expect(done.code, done.stderr).toBe(0);
    }
  });
});
