/**
 * send_message and the task tools as an MCP client sees them: the official SDK client talking to `missive mcp serve`
 * (a child process, over stdio) in a sandbox where real SDK agents on 127.0.0.1 are registered. An echo answers; a
 * streaming agent's chunks arrive as progress notifications before the result; an `input_required` task goes on
 * through elicitation (a client that declares it) or through the result's instructions (a client that does not),
 * in the same A2A task either way; a slow task is cancelled, waited for, listed; a task-augmented call ends with its
 * A2A task; a bearer-protected agent is reached with its secret on no MCP message and in no log; bad input is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { register, startAgents } from '../support/agents.js';
import { startConversationPeer, type ConversationPeer } from '../support/conversation-peer.js';
import { startSecuredAgent, type SecuredAgent } from '../support/secured-agent.js';
import { takeResult } from '@modelcontextprotocol/sdk/shared/responseMessage.js';
import { connectStdio, type McpSession } from '../support/mcp.js';
import { eventually } from '../support/waits.js';

const TOKEN = 'mcp-bearer-7d3e9a1c5b2f';

let fleet: Awaited<ReturnType<typeof startAgents>>;
let talk: ConversationPeer;
let secured: SecuredAgent;
let box: Sandbox;
/** A client that declares no elicitation. */
let plain: McpSession;
/** A client that declares elicitation and answers every question as `userAnswer` says ("Ada" unless a test changes it). */
let asking: McpSession;
const questions: string[] = [];
/** How the asking client's user answers the next questions. */
let userAnswer: { action: 'accept'; content: { reply: string } } | { action: 'decline' } = { action: 'accept', content: { reply: 'Ada' } };

type Answer = CallToolResult & { structuredContent: Record<string, any> };
const call = async (session: McpSession, args: Record<string, unknown>, name = 'send_message'): Promise<Answer> =>
  (await session.client.callTool({ name, arguments: args })) as Answer;
const texts = (result: CallToolResult): string => result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');

beforeAll(async () => {
  fleet = await startAgents({
    echo: { behaviour: 'echo', streaming: false },
    slow: { behaviour: 'slow', delayMs: 60_000, streaming: false },
    nag: { behaviour: 'input', streaming: false },
  });
  talk = await startConversationPeer();
  secured = await startSecuredAgent({
    token: TOKEN,
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
  });
  box = sandbox({ SECURED_TOKEN: TOKEN });
  await register(box, { ...fleet.agents, talk });
  expect((await box.run(['auth', 'add', 'tok', '--env', 'SECURED_TOKEN'])).code).toBe(0);
  const added = await box.run(['agent', 'add', 'secure', secured.baseUrl, '--auth-ref', 'tok']);
  expect(added.code, added.stderr).toBe(0);
  plain = await connectStdio(box, [], { name: 'plain-client' });
  asking = await connectStdio(box, [], {
    name: 'asking-client',
    capabilities: { elicitation: {} },
    setup: (client) =>
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        questions.push(request.params.message);
        return userAnswer;
      }),
  });
}, 60_000);

afterAll(async () => {
  await plain?.close();
  await asking?.close();
  await fleet?.close();
  await talk?.close();
  await secured?.close();
  box?.dispose();
});

describe('send_message', () => {
  it("answers with the agent's reply and the ids to go on with", async () => {
    const result = await call(plain, { agent: 'echo', text: 'hello' });
    expect(result.isError).toBeFalsy();
    expect(result.content[0]).toEqual({ type: 'text', text: 'echo: hello' });
    expect(result.structuredContent).toMatchObject({ agent: 'echo', state: 'message', task_id: null, reply: 'echo: hello' });
    expect(result.structuredContent.request_message_id).toEqual(expect.any(String));
  });

  it('sends data, file and file-URL parts built from the arguments, no local path', async () => {
    const result = await call(plain, {
      agent: 'echo',
      text: 'with parts',
      parts: [
        { type: 'text', text: 'second' },
        { type: 'data', data: { n: 1 } },
        { type: 'file', bytes_base64: Buffer.from('hi').toString('base64'), name: 'hi.txt', media_type: 'text/plain' },
        { type: 'file_url', url: 'https://example.com/a.pdf', name: 'a.pdf' },
      ],
    });
    expect(texts(result)).toBe('echo: with parts\nsecond');
  });

  it('streams a streaming agent: progress notifications with the text so far arrive before the result', async () => {
    const progress: string[] = [];
    let settled = false;
    const pending = plain.client
      .callTool({ name: 'send_message', arguments: { agent: 'talk', text: 'stream' } }, CallToolResultSchema, {
        onprogress: (p) => void progress.push(String(p.message)),
      })
      .finally(() => void (settled = true));
    // The agent pauses after its second chunk: what came so far is on the client, and the call has not answered.
    await eventually('the text so far', () => progress.some((m) => m.includes('halfway') && m.includes('line 1\nline 2')), 20_000);
    expect(settled).toBe(false);
    expect(progress.some((m) => m.includes('line 3'))).toBe(false);
    talk.release();
    const result = (await pending) as Answer;
    expect(result.structuredContent).toMatchObject({ agent: 'talk', state: 'completed', reply: 'all done' });
    expect(texts(result)).toBe('all done\nline 1\nline 2\nline 3\nline 4\n');
    // On the wire, every progress notification of the call precedes its response, the last one with the whole text.
    // (The SDK client runs notification handlers a microtask late, so one read with the response may miss onprogress.)
    const messages = plain.wire.map((line) => JSON.parse(line));
    const response = messages.findIndex((m) => m.result?.structuredContent?.task_id === result.structuredContent.task_id);
    const notes = messages.map((m, i) => (m.method === 'notifications/progress' && String(m.params.message).includes('line 1') ? i : -1)).filter((i) => i >= 0);
    expect(notes.length).toBeGreaterThanOrEqual(progress.filter((m) => m.includes('line 1')).length);
    expect(messages[notes.at(-1)!].params.message).toContain('line 4');
    expect(Math.max(...notes)).toBeLessThan(response);
  });

  it('asks the user through elicitation when the agent needs input, and completes the same task with the reply', async () => {
    const result = await call(asking, { agent: 'talk', text: 'ask' });
    expect(questions).toEqual(['talk asks: What name should I use?']);
    expect(result.isError).toBeFalsy();
    expect(texts(result)).toContain('Thanks, Ada. Task done.');
    expect(result.structuredContent).toMatchObject({ agent: 'talk', state: 'completed', elicitation_rounds: 1 });
    const listed = await call(asking, { context_id: result.structuredContent.context_id }, 'list_tasks');
    expect(listed.structuredContent.tasks.map((t: { task_id: string }) => t.task_id)).toEqual([result.structuredContent.task_id]);
  });

  it('hands the question back when the user declines, with the exact call that replies', async () => {
    userAnswer = { action: 'decline' };
    try {
      const result = await call(asking, { agent: 'talk', text: 'ask' });
      const { task_id, context_id } = result.structuredContent;
      expect(result.structuredContent).toMatchObject({ state: 'input_required', next: { tool: 'send_message', arguments: { task_id, context_id } } });
      expect(texts(result)).toContain('the user chose decline');
      expect(texts(result)).toContain('What name should I use?');
    } finally {
      userAnswer = { action: 'accept', content: { reply: 'Ada' } };
    }
  });

  it('asks the user at most 5 times in one call, then hands the question back', async () => {
    const before = questions.length;
    const result = await call(asking, { agent: 'nag', text: 'start' });
    expect(questions.length - before).toBe(5);
    expect(result.structuredContent).toMatchObject({ state: 'input_required', elicitation_rounds: 5 });
    expect(texts(result)).toContain('The user was asked 5 times');
  });

  it('without elicitation, says what the agent asks and how to reply; the reply completes the same task', async () => {
    const asked = await call(plain, { agent: 'talk', text: 'ask' });
    const { task_id, context_id } = asked.structuredContent;
    expect(asked.structuredContent).toMatchObject({
      state: 'input_required',
      next: { tool: 'send_message', arguments: { agent: 'talk', task_id, context_id } },
    });
    expect(texts(asked)).toContain('What name should I use?');
    expect(texts(asked)).toContain(`send_message {"agent":"talk","task_id":"${task_id}","context_id":"${context_id}"`);
    const replied = await call(plain, { agent: 'talk', task_id, context_id, text: 'Bob' });
    expect(texts(replied)).toContain('Thanks, Bob. Task done.');
    expect(replied.structuredContent).toMatchObject({ task_id, state: 'completed' });
  });

  it('reports auth_required with what the agent said and how to go on', async () => {
    const result = await call(plain, { agent: 'talk', text: 'authorize' });
    expect(result.structuredContent).toMatchObject({ state: 'auth_required', next: { tool: 'send_message' } });
    expect(texts(result)).toContain('needs authentication');
    expect(texts(result)).toContain('Sign in first');
  });

  it('reaches a bearer-protected agent without its secret on any MCP message or in the log', async () => {
    const result = await call(plain, { agent: 'secure', text: 'guarded hello' });
    expect(texts(result)).toBe('echo: guarded hello');
    expect(secured.requests.at(-1)?.authorization).toBe(`Bearer ${TOKEN}`);
    for (const session of [plain, asking]) {
      expect(session.wire.join('\n')).not.toContain(TOKEN);
      expect(session.stderr()).not.toContain(TOKEN);
    }
  });

  it('runs as an MCP task that ends with its A2A task, tasks/result giving the answer', async () => {
    const stream = plain.client.experimental.tasks.callToolStream(
      { name: 'send_message', arguments: { agent: 'slow', text: 'take 300ms', return_immediately: true } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    );
    const kinds: string[] = [];
    let result: Answer | undefined;
    for await (const message of stream) {
      kinds.push(message.type);
      if (message.type === 'result') result = message.result as Answer;
      if (message.type === 'error') throw message.error;
    }
    expect(kinds[0]).toBe('taskCreated');
    expect(result?.structuredContent).toMatchObject({ agent: 'slow', state: 'completed' });
    expect(texts(result!)).toContain('result for: take 300ms');
  });

  it('stops following the A2A task when the client cancels the MCP task (tasks/cancel)', async () => {
    const created = await plain.client.request(
      { method: 'tools/call', params: { name: 'send_message', arguments: { agent: 'slow', text: 'take 60s' }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    const mcpTaskId = created.task.taskId;
    // The run follows the slow task (GetTask polls) until the client cancels it; then it ends and is journaled.
    await eventually('the A2A task is followed', async () => (await plain.client.experimental.tasks.getTask(mcpTaskId)).status === 'working', 10_000);
    const cancelled = await plain.client.experimental.tasks.cancelTask(mcpTaskId);
    expect(cancelled.status).toBe('cancelled');
    const calls = async () => {
      const listed = await box.run(['events', 'list', '--type', 'missive.mcp.call', '--limit', '200', '--json']);
      return (listed.json().data.events as Array<{ payload: { mcp_task_id?: string; ok: boolean } }>).filter((e) => e.payload.mcp_task_id === mcpTaskId);
    };
    await eventually('the cancelled run ended and was journaled', async () => (await calls()).length === 1, 10_000);
    expect((await calls())[0]!.payload.ok).toBe(false);
  });

  it("runs as an MCP task whose agent asks for input: the task's result holds the question and how to reply", async () => {
    // Nobody waits on a task's request to show a question (server.ts): even a client that elicits gets the fallback.
    const before = questions.length;
    const stream = asking.client.experimental.tasks.callToolStream({ name: 'send_message', arguments: { agent: 'talk', text: 'ask' } }, CallToolResultSchema, {
      task: { ttl: 60_000 },
    });
    const answered = await takeResult(stream);
    const result = answered as Answer;
    expect(questions.length).toBe(before);
    const { task_id, context_id } = result.structuredContent;
    expect(result.structuredContent).toMatchObject({ state: 'input_required', next: { tool: 'send_message', arguments: { task_id, context_id } } });
    expect(texts(result)).toContain('What name should I use?');
    const replied = await call(asking, { agent: 'talk', task_id, context_id, text: 'Cy' });
    expect(replied.structuredContent).toMatchObject({ task_id, state: 'completed' });
  });

  it('refuses bad input: an unknown agent is an error result naming it, a missing field or a local file an MCP error', async () => {
    const unknown = await call(plain, { agent: 'nope', text: 'hi' });
    expect(unknown.isError).toBe(true);
    expect(texts(unknown)).toContain('no agent named "nope"');
    await expect(call(plain, { agent: 'echo' })).rejects.toThrow(McpError);
    // The field is named, and the client shows MCP's error prefix once (the server does not send it inside the message).
    const missing = await call(plain, { agent: 'echo' }).catch((error: Error) => error);
    expect((missing as Error).message).toMatch(/^MCP error -32602: send_message: text: /);
    await expect(call(plain, { agent: 'echo', text: 'x', parts: [{ type: 'file_url', url: 'file:///etc/passwd' }] })).rejects.toThrow(/parts\.0\.url/);
    await expect(call(plain, { agent: 'echo', text: 'x', parts: [{ type: 'file', path: '/etc/passwd' }] })).rejects.toThrow(/parts\.0/);
    const empty = await call(plain, { agent: 'echo', text: '  ' });
    expect(empty.isError).toBe(true);
    expect(texts(empty)).toContain('nothing to send');
  });
});

describe('task tools', () => {
  it('cancels a running task: return_immediately gives its id and a wait_task hint, cancel_task cancels it', async () => {
    const started = await call(plain, { agent: 'slow', text: 'take 60s', return_immediately: true });
    const { task_id } = started.structuredContent;
    expect(started.structuredContent).toMatchObject({ state: 'working', next: { tool: 'wait_task', arguments: { task_id } } });
    expect(texts(started)).toContain(`wait_task {"task_id":"${task_id}"}`);
    const cancelled = await call(plain, { task_id }, 'cancel_task');
    expect(cancelled.isError).toBeFalsy();
    expect(cancelled.structuredContent).toMatchObject({ task_id, state: 'cancelled' });
    const got = await call(plain, { task_id, remote: true }, 'get_task');
    expect(got.structuredContent).toMatchObject({ task_id, state: 'cancelled', source: 'remote' });
  });

  it('waits for a task, says when the wait ran out first, shows it with get_task and lists it with list_tasks', async () => {
    const quick = (await call(plain, { agent: 'slow', text: 'take 500ms', return_immediately: true })).structuredContent.task_id;
    const waited = await call(plain, { task_id: quick, timeout_seconds: 30 }, 'wait_task');
    expect(waited.structuredContent).toMatchObject({ task_id: quick, state: 'completed', timed_out: false });
    expect(texts(waited)).toContain('result for: take 500ms');

    const long = (await call(plain, { agent: 'slow', text: 'take 60s', return_immediately: true })).structuredContent.task_id;
    const ranOut = await call(plain, { task_id: long, timeout_seconds: 1 }, 'wait_task');
    expect(ranOut.structuredContent).toMatchObject({ task_id: long, state: 'working', timed_out: true });
    expect(texts(ranOut)).toContain(`Task ${long} is still working`);
    await call(plain, { task_id: long }, 'cancel_task');

    const local = await call(plain, { task_id: quick }, 'get_task');
    expect(local.structuredContent).toMatchObject({ task_id: quick, state: 'completed', source: 'local', artifacts: [{ artifact_id: 'result' }] });
    const listed = await call(plain, { agent: 'slow', limit: 1 }, 'list_tasks');
    expect(listed.structuredContent.tasks).toHaveLength(1);
    expect(listed.structuredContent.next_cursor).toEqual(expect.any(String));
    const next = await call(plain, { agent: 'slow', limit: 50, cursor: listed.structuredContent.next_cursor }, 'list_tasks');
    const all = [...listed.structuredContent.tasks, ...next.structuredContent.tasks].map((t: { task_id: string }) => t.task_id);
    expect(all).toEqual(expect.arrayContaining([quick, long]));
    const done = await call(plain, { agent: 'slow', state: 'completed' }, 'list_tasks');
    expect(done.structuredContent.tasks.map((t: { task_id: string }) => t.task_id)).toContain(quick);
    expect(done.structuredContent.tasks.map((t: { task_id: string }) => t.task_id)).not.toContain(long);
    const unknown = await call(plain, { task_id: 'no-such-task' }, 'get_task');
    expect(unknown.isError).toBe(true);
    expect(texts(unknown)).toContain('no-such-task');
  });

  it('marks the read-only and destructive tools', async () => {
    const { tools } = await plain.client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const name of ['get_task', 'wait_task', 'list_tasks']) expect(byName[name]?.annotations?.readOnlyHint).toBe(true);
    expect(byName.cancel_task?.annotations?.destructiveHint).toBe(true);
    expect(byName.send_message?.execution?.taskSupport).toBe('optional');
  });
});
