/**
 * Text and URLs (issue 35, item 8), against a real SDK peer that streams its answer one token per appended artifact
 * chunk, as LLM frameworks do: the chunks of one artifact are one text in `send`, `stream`, `gather`, `reduce`,
 * `history show` and `task get`; a card URL under `/.well-known/` without `.json` is a card URL in `agent add` and
 * `send <url>`; a failed `send <url>` registers nothing; a server failure answered as an A2A error object in an HTTP
 * 5xx body is the same error on HTTP+JSON as on JSON-RPC; a missing push config gets help about push configs.
 */
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { closedPortUrl } from '../support/agents.js';
import { startTokenPeer, startV03CrashPeer, type TokenPeer } from '../support/token-peer.js';
import { createCore } from '../../electron/core/context.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { gatewayRuns, runGateway } from '../../electron/core/gateway/gateway.js';
import { registerAgentWithCard } from '../../electron/core/agents/register-with-card.js';

const ASKED = 'the quick brown fox';
const ANSWER = `echo: ${ASKED}`;

let peer: TokenPeer;
let box: Sandbox;
beforeAll(async () => {
  peer = await startTokenPeer();
});
afterAll(() => peer.close());
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.dispose());

const ok = async (args: string[]) => {
  const res = await box.run(args);
  expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0);
  return res;
};
const agentAliases = async (): Promise<string[]> => (await ok(['agent', 'list', '--json'])).json().data.agents.map((a: { alias: string }) => a.alias);

describe('the appended chunks of one artifact are one text', () => {
  beforeEach(async () => {
    await ok(['agent', 'add', 'tok', peer.baseUrl]);
  });

  it('send prints the answer on one line', async () => {
    const res = await ok(['send', 'tok', ASKED]);
    expect(res.stdout.split('\n')[0]).toBe(ANSWER);
    expect((await ok(['send', 'tok', ASKED, '--json'])).json().data.response.task.artifacts[0].parts.length).toBe(ANSWER.split(' ').length);
  });

  it("stream's answer line holds the joined text, with no escaped newline", async () => {
    const res = await ok(['stream', 'tok', ASKED]);
    const answer = res.stdout.split('\n').find((l) => l.startsWith('answer'));
    expect(answer).toMatch(new RegExp(`^answer\\s+${ANSWER}$`));
    expect((await ok(['stream', 'tok', ASKED, '--json'])).json().data.answer_text).toBe(ANSWER);
  });

  it('task get and history show print the joined text', async () => {
    const sent = (await ok(['stream', 'tok', ASKED, '--json'])).json().data;
    expect((await ok(['task', 'get', sent.task.task_id])).stdout).toContain(`\n${ANSWER}`);
    const entry = (await ok(['history', 'list', '--json'])).json().data.entries[0];
    expect(entry.answer_text).toBe(ANSWER);
  });

  it("a job's answer text is the joined text, for send and stream jobs", async () => {
    const core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
    const stop = new AbortController();
    const gateway = runGateway(core, { intervalMs: 100, signal: stop.signal });
    try {
      await expect.poll(() => gatewayRuns(core), { timeout: 10_000, interval: 20 }).toBe(true);
      for (const kind of ['send', 'stream']) {
        const done = (await ok(['job', 'start', kind, 'tok', ASKED, '--attach', '--json'])).json().data;
        expect(done.result?.text, JSON.stringify(done)).toBe(ANSWER);
      }
    } finally {
      stop.abort();
      await gateway;
      core.close();
    }
  });

  it('gather shows the joined text, and reduce keeps joining it', async () => {
    await ok(['group', 'create', 'g', '--member', 'tok']);
    await ok(['stream', 'tok', ASKED, '--context', 'c-stream']);
    await ok(['send', 'tok', ASKED, '--context', 'c-send']);
    for (const context of ['c-stream', 'c-send']) {
      const gathered = await ok(['gather', 'g', '--context', context]);
      expect(gathered.stdout.split('\n')).toContain(ANSWER);
      expect((await ok(['gather', 'g', '--context', context, '--json'])).json().data.members[0].text).toBe(ANSWER);
      expect((await ok(['reduce', 'g', '--context', context, '--json'])).stdout).toContain(ANSWER);
    }
  });
});

describe('card URLs under /.well-known/', () => {
  it('agent add takes /.well-known/agent-card (no .json) for the card URL', async () => {
    const res = await ok(['agent', 'add', 'bare', peer.bareCardUrl]);
    expect(res.stderr).not.toContain('already contains /.well-known/');
    const shown = (await ok(['agent', 'show', 'bare', '--json'])).json().data.agent;
    expect(shown.base_url).toBe(`${peer.baseUrl}/a2a/rest`);
    expect((await ok(['send', 'bare', ASKED])).stdout.split('\n')[0]).toBe(ANSWER);
  });

  it("the desktop app's Register takes a card URL typed as the base URL for the card URL", async () => {
    const core = createCore({ env: box.env, cwd: box.home, secrets: createMemorySecretStore() });
    try {
      const view = await registerAgentWithCard(core, { alias: 'gui', baseUrl: peer.bareCardUrl });
      expect(view.base_url).toBe(`${peer.baseUrl}/a2a/rest`);
      expect(view.card.cached).toBe(true);
    } finally {
      core.close();
    }
  });

  it('send <url> takes /.well-known/agent-card (no .json) for the card URL', async () => {
    expect((await ok(['send', peer.bareCardUrl, ASKED])).stdout.split('\n')[0]).toBe(ANSWER);
  });

  it('a base URL with no card names --card-url in its exit 76', async () => {
    const res = await box.run(['agent', 'add', 'nocard', `${peer.baseUrl}/somewhere`]);
    expect(res.code).toBe(0);
    const inspected = await box.run(['agent', 'inspect', 'nocard']);
    expect(inspected.code).toBe(76);
    expect(inspected.stderr).toContain('--card-url');
  });

  it('a base URL holding /.well-known/ warns with --card-url', async () => {
    const res = await ok(['agent', 'add', 'wk', `${peer.baseUrl}/.well-known/x`, '--card-url', `${peer.baseUrl}/.well-known/agent-card.json`]);
    expect(res.stderr).toContain('already contains /.well-known/');
    expect(res.stderr).toContain('--card-url');
  });
});

describe('a failed send <url> registers nothing', () => {
  it('leaves agent list unchanged when the URL has no card', async () => {
    await ok(['agent', 'add', 'tok', peer.baseUrl]);
    const before = await agentAliases();
    const res = await box.run(['send', `${peer.baseUrl}/nowhere`, 'hi']);
    expect(res.code).toBe(76);
    expect(res.stderr).toContain('--card-url');
    expect(await agentAliases()).toEqual(before);
  });

  it('leaves agent list unchanged when nothing listens', async () => {
    const res = await box.run(['send', await closedPortUrl(), 'hi']);
    expect(res.code).toBe(69);
    expect(await agentAliases()).toEqual([]);
  });

  it('leaves agent list unchanged when the agent fails the send after its card was read', async () => {
    const res = await box.run(['send', peer.bareCardUrl, 'crash now']);
    expect(res.code).toBe(76);
    expect(await agentAliases()).toEqual([]);
  });

  it('keeps the agent a successful send <url> discovered', async () => {
    await ok(['send', peer.baseUrl, ASKED]);
    expect(await agentAliases()).toEqual([peer.baseUrl]);
  });
});

describe('a server failure is the same error on every binding', () => {
  it('an A2A error object in an HTTP 500 body is the JSON-RPC error code, exit 76', async () => {
    await ok(['agent', 'add', 'rest', peer.baseUrl, '--binding-preference', 'http+json']);
    await ok(['agent', 'add', 'rpc', peer.baseUrl, '--binding-preference', 'json-rpc']);
    const viaRpc = await box.run(['send', 'rpc', 'crash', '--json']);
    const viaRest = await box.run(['send', 'rest', 'crash', '--json']);
    expect(viaRpc.code).toBe(76);
    expect(viaRest.code).toBe(viaRpc.code);
    expect(JSON.parse(viaRest.stderr).data.code).toBe(JSON.parse(viaRpc.stderr).data.code);
    expect(JSON.parse(viaRest.stderr).data.message).toContain('the model backend crashed');
    const streamedRpc = await box.run(['stream', 'rpc', 'crash', '--json']);
    const streamedRest = await box.run(['stream', 'rest', 'crash', '--json']);
    expect(streamedRpc.code).toBe(76);
    expect(streamedRest.code).toBe(streamedRpc.code);
    expect(JSON.parse(streamedRest.stderr).data.code).toBe(JSON.parse(streamedRpc.stderr).data.code);
  });

  it('the same holds for an A2A 0.3 agent (its HTTP+JSON body `{code: -32603, message}`)', async () => {
    const v03 = await startV03CrashPeer();
    try {
      await ok(['agent', 'add', 'rest03', v03.baseUrl, '--binding-preference', 'http+json']);
      await ok(['agent', 'add', 'rpc03', v03.baseUrl, '--binding-preference', 'json-rpc']);
      const viaRpc = await box.run(['send', 'rpc03', 'hi', '--json']);
      const viaRest = await box.run(['send', 'rest03', 'hi', '--json']);
      expect(viaRpc.code, viaRpc.stderr).toBe(76);
      expect(viaRest.code, viaRest.stderr).toBe(viaRpc.code);
      expect(JSON.parse(viaRest.stderr).data.code).toBe(JSON.parse(viaRpc.stderr).data.code);
    } finally {
      await v03.close();
    }
  });
});

describe('a missing push config', () => {
  it('gets help about push configs, not about a missing task', async () => {
    await ok(['agent', 'add', 'tok', peer.baseUrl]);
    const task = (await ok(['send', 'tok', ASKED, '--json'])).json().data.task.task_id as string;
    await ok(['push', 'create', 'tok', task, '--url', 'http://127.0.0.1:9/a2a/push', '--config-id', 'known']);
    const res = await box.run(['push', 'get', 'tok', task, 'no-such-config', '--json']);
    expect(res.code).toBe(76);
    const error = JSON.parse(res.stderr).data;
    expect(error.help).toContain('push list');
    expect(error.help).not.toContain('task list');
  });
});
