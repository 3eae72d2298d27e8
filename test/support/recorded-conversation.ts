/**
 * A conversation worth replaying, recorded through the real CLI from a real @a2a-js/sdk agent, for `missive mock`
 * tests. The agent (HTTP+JSON and JSON-RPC on 127.0.0.1, its A2A routes behind a bearer token) answers by the first
 * word of a new message:
 * - `stream …`: a streamed task whose one artifact (`story`) arrives in exactly 3 appended chunks, then completes;
 * - `ask …`: a task in `input_required` asking for a name; the reply (same task) completes it with an artifact;
 * - anything else: a completed task with an artifact echoing the text.
 * `recordConversation(box)` registers it as `storyteller` (auth ref `rec-token`, read from an env var passed to each
 * run) and, in one context, streams `stream the story`, sends `ask for a name`, replies `Ada` to that task, and sends
 * `hello`. The journal then holds the four exchanges a mock replays.
 */
import express from 'express';
import { randomUUID } from 'node:crypto';
import { AGENT_CARD_PATH, AgentCard, Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { listenLoopback, sdkInterfaces } from './loopback-app.js';
import type { Sandbox } from './cli.js';

/** The bearer token the agent's A2A routes need: it must appear in no recording. */
export const RECORDING_TOKEN = 'rec-secret-4f1d9c2b7e';
/** The env var the sandbox's auth ref reads the token from (pass it as `{ env }` to runs that call the agent). */
export const RECORDING_TOKEN_ENV = 'MOCK_REC_TOKEN';
export const STORY_CHUNKS = ['Once upon a time, ', 'a mock replayed ', 'a recorded agent.'];
export const TEXTS = { stream: 'stream the story', ask: 'ask for a name', reply: 'Ada', hello: 'hello' } as const;

const textOf = (message: Message) => message.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

class StorytellerExecutor implements AgentExecutor {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = textOf(ctx.userMessage);
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    const agentMessage = (value: string) => ({ messageId: randomUUID(), ...ids, role: 'ROLE_AGENT', parts: [{ text: value }] });
    const status = (state: string, value?: string, final = false) =>
      bus.publish(
        AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ ...ids, status: { state, ...(value ? { message: agentMessage(value) } : {}) }, final })),
      );
    const artifact = (artifactId: string, value: string, append = false, lastChunk = true) =>
      bus.publish(
        AgentEvent.artifactUpdate(
          TaskArtifactUpdateEvent.fromJSON({ ...ids, artifact: { artifactId, name: `${artifactId}.txt`, parts: [{ text: value }] }, append, lastChunk }),
        ),
      );
    const task = (state: string) =>
      bus.publish(AgentEvent.task(Task.fromJSON({ id: ctx.taskId, contextId: ctx.contextId, status: { state }, history: [Message.toJSON(ctx.userMessage)] })));

    if (ctx.task) {
      // The reply to a task waiting for input completes it.
      task('TASK_STATE_WORKING');
      artifact('greeting', `Hello, ${text}!`);
      status('TASK_STATE_COMPLETED', `Thanks, ${text}. Task done.`, true);
      return bus.finished();
    }
    const word = text.trim().split(/\s+/)[0];
    if (word === 'stream') {
      task('TASK_STATE_SUBMITTED');
      status('TASK_STATE_WORKING', 'telling the story');
      STORY_CHUNKS.forEach((chunk, i) => artifact('story', chunk, i > 0, i === STORY_CHUNKS.length - 1));
      status('TASK_STATE_COMPLETED', 'the end', true);
    } else if (word === 'ask') {
      task('TASK_STATE_SUBMITTED');
      status('TASK_STATE_INPUT_REQUIRED', 'What name should I use?', true);
    } else {
      task('TASK_STATE_WORKING');
      artifact('echo', `echo: ${text}`);
      status('TASK_STATE_COMPLETED', undefined, true);
    }
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}

export interface StorytellerPeer {
  baseUrl: string;
  /** How many A2A requests reached it with the token. */
  received(): number;
  close(): Promise<void>;
}

/** The storyteller agent on 127.0.0.1; its A2A routes answer 401 without `Bearer <token>`. */
export async function startStorytellerPeer(token = RECORDING_TOKEN): Promise<StorytellerPeer> {
  const app = express();
  const { baseUrl, close } = await listenLoopback(app);
  const card = AgentCard.fromJSON({
    name: 'storyteller',
    description: 'an SDK agent that streams a story, asks for a name and echoes',
    version: '1.0.0',
    supportedInterfaces: sdkInterfaces(baseUrl),
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'story', name: 'Story', description: 'tells a story in chunks', tags: ['test'] }],
  });
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new StorytellerExecutor());
  let received = 0;
  const requireToken: express.RequestHandler = (req, res, next) => {
    if (req.headers.authorization === `Bearer ${token}`) return void (received++, next());
    res.status(401).set('WWW-Authenticate', 'Bearer realm="storyteller"').json({ error: 'unauthorized' });
  };
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', requireToken, jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', requireToken, restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return { baseUrl, received: () => received, close };
}

export interface RecordedConversation {
  peer: StorytellerPeer;
  alias: string;
  contextId: string;
  /** The task ids, in order: the streamed story, the `ask` task (which the reply continued and completed), `hello`. */
  taskIds: { stream: string; ask: string; hello: string };
  close(): Promise<void>;
}

/** Records the conversation described above in `box`'s journal through the CLI; `alias` defaults to `storyteller`. */
export async function recordConversation(box: Sandbox, alias = 'storyteller'): Promise<RecordedConversation> {
  const peer = await startStorytellerPeer();
  const env = { [RECORDING_TOKEN_ENV]: RECORDING_TOKEN };
  const run = async (args: string[]) => {
    const res = await box.run(args, { env });
    if (res.code !== 0) throw new Error(`missive ${args.join(' ')} (exit ${res.code}): ${res.stderr || res.stdout}`);
    return res;
  };
  try {
    await run(['auth', 'add', 'rec-token', '--env', RECORDING_TOKEN_ENV]);
    await run(['agent', 'add', alias, peer.baseUrl, '--auth-ref', 'rec-token']);
    await run(['agent', 'inspect', alias]);
    const streamed = (await run(['stream', alias, TEXTS.stream, '--json'])).json().data;
    const contextId: string = streamed.context_id;
    const stream: string = streamed.task.task_id;
    const asked = (await run(['send', alias, TEXTS.ask, '--context', contextId, '--json'])).json().data;
    const ask: string = asked.task.task_id;
    await run(['send', alias, TEXTS.reply, '--context', contextId, '--task', ask, '--json']);
    const hello: string = (await run(['send', alias, TEXTS.hello, '--context', contextId, '--json'])).json().data.task.task_id;
    return { peer, alias, contextId, taskIds: { stream, ask, hello }, close: () => peer.close() };
  } catch (error) {
    await peer.close();
    throw error;
  }
}
