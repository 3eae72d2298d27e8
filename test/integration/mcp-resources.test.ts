/**
 * MCP resources as a client sees them: the official SDK client talking to `missive mcp serve` (a child process, over
 * stdio) in a sandbox where real SDK agents on 127.0.0.1 were registered and sent to with `missive send`. resources/list
 * walks every card, thread, task and artifact in pages; resources/read gives a card, a thread, a task, a text artifact
 * and a file artifact (a blob); a wrong URI is an MCP error naming it; a subscription to a running task is notified
 * when the journal records its end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createCore } from '../../electron/core/context.js';
import { createResourceWatch, MAX_SUBSCRIPTIONS } from '../../electron/core/mcp/resource-watch.js';
import { createMissiveMcp } from '../../electron/core/mcp/server.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { FILE_TEXT, startConversationPeer, type ConversationPeer } from '../support/conversation-peer.js';
import { connectStdio, type McpSession } from '../support/mcp.js';
import { eventually, okData } from '../support/waits.js';

/** Sends to the chunks agent: each makes a context, a task and its artifact, enough resources for two pages. */
const REPORTS = 18;
/** The secret of an auth ref (its env var is set for the server only), which a user pasted into one message. */
const SECRET = 'leak-secret-4f9a2c7e1b';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let peer: ConversationPeer;
let box: Sandbox;
let mcp: McpSession;
const updated: string[] = [];
const reportTasks: string[] = [];
let fileTask: string;
let reportContext: string;
let leakTask: string;
let leakContext: string;

/** The text of the only content of a read. */
const textOf = (result: { contents: readonly object[] }): string => String((result.contents[0] as { text?: unknown } | undefined)?.text);

beforeAll(async () => {
  fleet = await startAgents({ chunks: { behaviour: 'chunks', chunks: 3 }, slow: { behaviour: 'slow', delayMs: 60_000 } });
  peer = await startConversationPeer();
  box = sandbox();
  await register(box, { ...fleet.agents, files: peer });
  for (let i = 0; i < REPORTS; i++) {
    const sent = okData(await box.run(['send', 'chunks', `report ${i}`, '--json']), 'send chunks');
    reportTasks.push(sent.task.task_id);
    reportContext ??= sent.task.context_id;
  }
  fileTask = okData(await box.run(['send', 'files', 'file', '--json']), 'send file').task.task_id;
  expect((await box.run(['auth', 'add', 'leak', '--env', 'LEAK_TOKEN'])).code).toBe(0);
  const leak = okData(await box.run(['send', 'chunks', `my token is ${SECRET}`, '--json']), 'send leak').task;
  [leakTask, leakContext] = [leak.task_id, leak.context_id];
  mcp = await connectStdio(box, [], {
    name: 'resources-test',
    env: { LEAK_TOKEN: SECRET },
    setup: (client) => client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri)),
  });
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await fleet?.close();
  await peer?.close();
  box?.dispose();
});

describe('MCP resources (mcp serve over stdio)', () => {
  it('lists every card, thread, task and artifact once, page by page, cards first', async () => {
    const uris: string[] = [];
    const pages: number[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const listed = await mcp.client.listResources(cursor ? { cursor } : {});
      pages.push(listed.resources.length);
      uris.push(...listed.resources.map((r) => r.uri));
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
    expect(cursor, 'the listing ended within 20 pages').toBeUndefined();
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[0]).toBe(50);
    expect(new Set(uris).size).toBe(uris.length);
    expect(uris.slice(0, 3)).toEqual(['missive://agent/chunks/card', 'missive://agent/files/card', 'missive://agent/slow/card']);
    // 3 cards, a thread per send, and each task with its one artifact.
    const sends = REPORTS + 2;
    expect(uris.filter((u) => u.startsWith('missive://context/')).length).toBe(sends);
    expect(uris.filter((u) => u.startsWith('missive://task/')).length).toBe(sends);
    expect(uris.filter((u) => u.startsWith('missive://artifact/')).length).toBe(sends);
    expect(uris.length).toBe(3 + 3 * sends);
    for (const task of reportTasks) expect(uris).toContain(`missive://artifact/${task}/result`);
    expect(uris).toContain(`missive://artifact/${fileTask}/greeting`);
    expect(uris).toContain(`missive://context/${reportContext}/thread`);
  });

  it('refuses a cursor it did not issue, naming the fix', async () => {
    await expect(mcp.client.listResources({ cursor: 'bm90LW91cnM' })).rejects.toThrow(/not issued by this server's resources\/list/);
  });

  it('lists the four URI templates', async () => {
    const { resourceTemplates } = await mcp.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'missive://agent/{alias}/card',
      'missive://context/{context}/thread',
      'missive://task/{task_id}',
      'missive://artifact/{task_id}/{artifact_id}',
    ]);
  });

  it("reads an agent's cached card as JSON", async () => {
    const read = await mcp.client.readResource({ uri: 'missive://agent/files/card' });
    expect(read.contents[0]?.mimeType).toBe('application/json');
    const card = JSON.parse(textOf(read));
    expect(card.name).toBe('conversation peer');
    expect(card.skills[0].id).toBe('talk');
  });

  it("reads a context's thread: the request and the agent's answer, oldest first", async () => {
    const thread = JSON.parse(textOf(await mcp.client.readResource({ uri: `missive://context/${reportContext}/thread` })));
    expect(thread.context.context_id).toBe(reportContext);
    const texts = thread.items.map((item: { text: string | null }) => item.text).join('\n');
    expect(texts).toContain('report 0');
    expect(texts).toContain('done: report 0');
    expect(thread.items[0].role).toBe('user');
  });

  it('reads a task: its state, status message and the URIs of its artifacts', async () => {
    const task = JSON.parse(textOf(await mcp.client.readResource({ uri: `missive://task/${fileTask}` })));
    expect(task).toMatchObject({ task_id: fileTask, agent_alias: 'files', state: 'completed', final: true });
    expect(task.status_message.text).toBe('Here is the file.');
    expect(task.artifacts.map((a: { uri: string }) => a.uri)).toEqual([`missive://artifact/${fileTask}/greeting`]);
  });

  it("reads a text artifact as its text, the chunks joined, and a file artifact as a blob of the file's bytes", async () => {
    const text = await mcp.client.readResource({ uri: `missive://artifact/${reportTasks[1]}/result` });
    expect(text.contents).toHaveLength(1);
    expect(textOf(text)).toBe(['chunk 1 of 3 for: report 1', 'chunk 2 of 3 for: report 1', 'chunk 3 of 3 for: report 1', ''].join('\n'));
    const file = await mcp.client.readResource({ uri: `missive://artifact/${fileTask}/greeting` });
    expect(file.contents).toEqual([
      { uri: `missive://artifact/${fileTask}/greeting`, mimeType: 'text/plain', blob: Buffer.from(FILE_TEXT).toString('base64') },
    ]);
  });

  it('scrubs a known secret from what it reads: a thread and an artifact that quote it', async () => {
    // The journal holds it as sent (the CLI, without the env var, does not know it is a secret).
    expect((await box.run(['task', 'artifact', 'show', leakTask, 'result', '--json'])).stdout).toContain(SECRET);
    const thread = textOf(await mcp.client.readResource({ uri: `missive://context/${leakContext}/thread` }));
    expect(thread).toContain('my token is');
    const artifact = textOf(await mcp.client.readResource({ uri: `missive://artifact/${leakTask}/result` }));
    expect(artifact).toContain('chunk 1 of 3 for: my token is');
    expect(mcp.wire.join('\n')).not.toContain(SECRET);
  });

  it('answers an unknown URI with InvalidParams and a missing one with -32002, each naming the URI', async () => {
    const unknown = await mcp.client.readResource({ uri: 'file:///etc/passwd' }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(McpError);
    expect(unknown).toMatchObject({ code: -32602 });
    expect((unknown as Error).message).toContain('"file:///etc/passwd"');
    expect((unknown as Error).message).not.toContain('root:');
    // MCP's "MCP error <code>:" prefix once, as the client adds it (the server sends the message alone).
    expect((unknown as Error).message).toMatch(/^MCP error -32602: (?!MCP error)/);
    const missing = await mcp.client.readResource({ uri: 'missive://task/no-such-task' }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: -32002 });
    expect((missing as Error).message).toContain('"missive://task/no-such-task"');
    const noArtifact = await mcp.client.readResource({ uri: `missive://artifact/${fileTask}/nope` }).catch((e: unknown) => e);
    expect(noArtifact).toMatchObject({ code: -32002 });
    const noAgent = await mcp.client.readResource({ uri: 'missive://agent/ghost/card' }).catch((e: unknown) => e);
    expect(noAgent).toMatchObject({ code: -32002 });
    expect((noAgent as Error).message).toContain('no agent named "ghost"');
  });

  it('refuses a subscription to a resource that does not change', async () => {
    await expect(mcp.client.subscribeResource({ uri: 'missive://agent/chunks/card' })).rejects.toThrow(/only a task/);
  });

  it('notifies a subscriber when the journal records the end of a running task', async () => {
    const sent = okData(await box.run(['send', 'slow', 'take 2s', '--return-immediately', '--json']), 'send slow');
    const taskId: string = sent.task.task_id;
    expect(sent.task.state).toBe('working');
    const uri = `missive://task/${taskId}`;
    const artifact = `missive://artifact/${taskId}/result`;
    await mcp.client.subscribeResource({ uri });
    // An artifact the task does not have yet may be subscribed to: it is notified when it comes.
    await mcp.client.subscribeResource({ uri: artifact });
    expect(updated).not.toContain(uri);
    // The wait records the task's end in the journal the server polls (the server never asks the agent itself).
    okData(await box.run(['task', 'wait', taskId, '--json']), 'task wait');
    await eventually('notifications/resources/updated for the task and its artifact', () => updated.includes(uri) && updated.includes(artifact), 10_000);
    const task = JSON.parse(textOf(await mcp.client.readResource({ uri })));
    expect(task).toMatchObject({ state: 'completed', final: true });
    expect(task.status_message.text).toBe('done: take 2s');
  });
});

describe('resource subscriptions (in process, on the same store)', () => {
  it('holds at most 64 at once, frees one on unsubscribe, and notifies each URI only of its own change', async () => {
    const taskId: string = okData(await box.run(['send', 'slow', 'take 2s', '--return-immediately', '--json']), 'send slow').task.task_id;
    const core = createCore({ env: box.env, cwd: box.home, secrets: box.secrets });
    const notified: string[] = [];
    const watch = createResourceWatch(core, (uri) => void notified.push(uri));
    try {
      await expect(watch.subscribe('missive://task/no-such-task')).rejects.toMatchObject({ code: -32002 });
      for (let i = 0; i < MAX_SUBSCRIPTIONS; i++) await watch.subscribe(`missive://artifact/${taskId}/other-${i}`);
      const over = await watch.subscribe(`missive://task/${taskId}`).catch((e: unknown) => e);
      expect(over).toBeInstanceOf(McpError);
      expect((over as Error).message).toContain(`at most ${MAX_SUBSCRIPTIONS} resource subscriptions`);
      watch.unsubscribe(`missive://artifact/${taskId}/other-0`);
      await watch.subscribe(`missive://task/${taskId}`);
      okData(await box.run(['task', 'wait', taskId, '--json']), 'task wait');
      await eventually('the task notified', () => notified.includes(`missive://task/${taskId}`), 10_000);
      // The artifacts subscribed to never came: nothing else was notified.
      expect(notified).toEqual([`missive://task/${taskId}`]);
    } finally {
      watch.close();
      core.close();
    }
  });

  it("sends a resource's updates only to the connections that subscribed to it, and keeps watching while one still does", async () => {
    const taskId: string = okData(await box.run(['send', 'slow', 'take 2s', '--return-immediately', '--json']), 'send slow').task.task_id;
    const uri = `missive://task/${taskId}`;
    const core = createCore({ env: box.env, cwd: box.home, secrets: box.secrets });
    const mcpServer = createMissiveMcp({ core, cwd: box.home });
    // Three connections to one server process (as three Streamable HTTP sessions are).
    const connect = async (name: string) => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await mcpServer.newServer().connect(serverSide);
      const client = new Client({ name, version: '1.0.0' });
      const seen: string[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void seen.push(n.params.uri));
      await client.connect(clientSide);
      return { client, seen };
    };
    const [watcher, leaver, bystander] = [await connect('watcher'), await connect('leaver'), await connect('bystander')];
    try {
      await watcher.client.subscribeResource({ uri });
      await leaver.client.subscribeResource({ uri });
      await leaver.client.unsubscribeResource({ uri });
      okData(await box.run(['task', 'wait', taskId, '--json']), 'task wait');
      await eventually('the subscriber notified', () => watcher.seen.includes(uri), 10_000);
      // The others never subscribed, or left: a sign of the end would have come with the subscriber's.
      expect(leaver.seen).toEqual([]);
      expect(bystander.seen).toEqual([]);
    } finally {
      for (const { client } of [watcher, leaver, bystander]) await client.close();
      await mcpServer.close();
      core.close();
    }
  });
});
