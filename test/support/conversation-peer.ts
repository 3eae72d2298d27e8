/**
 * An A2A v1.0 agent on the official SDK server for Compose's conversation tests. The first word of a new message
 * picks what it does:
 * - `ask` / `authorize`: a task that waits in `input_required` / `auth_required`; the reply (same task) completes it.
 * - `markdown <url>`: a completed task whose status message is Markdown with raw HTML and images pointing at `<url>`.
 * - `data`: an artifact holding one data part; `file`: an artifact holding one file (bytes); `lines`: a status
 *   message and an artifact of 16 text lines.
 * - `stream`: status messages and an artifact in 4 appended chunks, pausing after the second until `release()`.
 * - `push`: a task that completes after a short delay (its callbacks go to an inline push URL).
 * - anything else: a direct message `turn <n>: <text>`, n counting the messages of its context.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { AGENT_CARD_PATH, AgentCard, Message, Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

export const FILE_TEXT = 'hello from the agent\n';
export const SIXTEEN_LINES = Array.from({ length: 16 }, (_, i) => `line ${i + 1} of the report`).join('\n');

const textOf = (message: Message) => message.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

class ConversationExecutor implements AgentExecutor {
  readonly turns = new Map<string, number>();
  /** Resolves the stream paused after its second chunk. */
  release: () => void = () => {};

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = textOf(ctx.userMessage);
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    const message = (value: string) => ({ messageId: randomUUID(), ...ids, role: 'ROLE_AGENT', parts: [{ text: value }] });
    const status = (state: string, value?: string, final = false) =>
      bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ ...ids, status: { state, ...(value ? { message: message(value) } : {}) }, final })));
    const artifact = (artifactId: string, name: string, parts: unknown[], append = false, lastChunk = true) =>
      bus.publish(AgentEvent.artifactUpdate(TaskArtifactUpdateEvent.fromJSON({ ...ids, artifact: { artifactId, name, parts }, append, lastChunk })));
    const task = (state: string) =>
      bus.publish(AgentEvent.task(Task.fromJSON({ id: ctx.taskId, contextId: ctx.contextId, status: { state }, history: [Message.toJSON(ctx.userMessage)] })));
    const done = () => bus.finished();

    // A reply in a task that waits for the user completes it.
    const waiting = ctx.task?.status?.state;
    if (ctx.task) {
      task('TASK_STATE_WORKING');
      status(
        'TASK_STATE_COMPLETED',
        waiting === TaskState.TASK_STATE_AUTH_REQUIRED ? `Authorized with "${text}". Task done.` : `Thanks, ${text}. Task done.`,
        true,
      );
      return done();
    }
    const [word, ...rest] = text.trim().split(/\s+/);
    switch (word) {
      case 'ask':
        task('TASK_STATE_SUBMITTED');
        status('TASK_STATE_INPUT_REQUIRED', 'What name should I use?', true);
        return done();
      case 'authorize':
        task('TASK_STATE_SUBMITTED');
        status('TASK_STATE_AUTH_REQUIRED', 'Sign in first, then reply with the word ok.', true);
        return done();
      case 'markdown': {
        const url = rest[0] ?? 'http://127.0.0.1:9';
        task('TASK_STATE_WORKING');
        const body = [
          '# Report',
          'Some **bold** words and a list:',
          '',
          '- first',
          '- second',
          '',
          `<script>window.__mdPwned = 1</script>`,
          '',
          `<img src="${url}/raw.png" onerror="window.__mdPwned = 2">`,
          '',
          `![tracker](${url}/tracker.png)`,
        ].join('\n');
        status('TASK_STATE_COMPLETED', body, true);
        return done();
      }
      case 'data':
        task('TASK_STATE_WORKING');
        artifact('numbers', 'numbers.json', [{ data: { report: { rows: 3, ok: true, tags: ['alpha', 'beta'] } }, mediaType: 'application/json' }]);
        status('TASK_STATE_COMPLETED', 'Here is the data.', true);
        return done();
      case 'file':
        task('TASK_STATE_WORKING');
        artifact('greeting', 'hello.txt', [{ raw: Buffer.from(FILE_TEXT).toString('base64'), filename: 'hello.txt', mediaType: 'text/plain' }]);
        status('TASK_STATE_COMPLETED', 'Here is the file.', true);
        return done();
      case 'lines':
        task('TASK_STATE_WORKING');
        artifact('report', 'report.txt', [{ text: SIXTEEN_LINES, mediaType: 'text/plain' }]);
        status('TASK_STATE_COMPLETED', 'Here are sixteen lines.', true);
        return done();
      case 'stream': {
        task('TASK_STATE_SUBMITTED');
        status('TASK_STATE_WORKING', 'starting');
        artifact('story', 'story.txt', [{ text: 'line 1\n', mediaType: 'text/plain' }], false, false);
        artifact('story', 'story.txt', [{ text: 'line 2\n', mediaType: 'text/plain' }], true, false);
        status('TASK_STATE_WORKING', 'halfway');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 20_000);
          timer.unref();
          this.release = () => (clearTimeout(timer), resolve());
        });
        artifact('story', 'story.txt', [{ text: 'line 3\n', mediaType: 'text/plain' }], true, false);
        artifact('story', 'story.txt', [{ text: 'line 4\n', mediaType: 'text/plain' }], true, true);
        status('TASK_STATE_COMPLETED', 'all done', true);
        return done();
      }
      case 'push':
        task('TASK_STATE_WORKING');
        await new Promise((resolve) => setTimeout(resolve, 300).unref());
        status('TASK_STATE_COMPLETED', 'pushed and done', true);
        return done();
      default: {
        const n = (this.turns.get(ctx.contextId) ?? 0) + 1;
        this.turns.set(ctx.contextId, n);
        bus.publish(
          AgentEvent.message(
            Message.fromJSON({ messageId: randomUUID(), contextId: ctx.contextId, role: 'ROLE_AGENT', parts: [{ text: `turn ${n}: ${text}` }] }),
          ),
        );
        return done();
      }
    }
  }

  async cancelTask(): Promise<void> {}
}

export interface ConversationPeer {
  baseUrl: string;
  /** Lets a paused `stream` go on. */
  release(): void;
  close(): Promise<void>;
}

export async function startConversationPeer(): Promise<ConversationPeer> {
  const app = express();
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = AgentCard.fromJSON({
    name: 'conversation peer',
    description: 'an SDK agent that holds conversations, asks for input and answers with artifacts',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [{ id: 'talk', name: 'Talk', description: 'holds a conversation', tags: ['test'] }],
  });
  const executor = new ConversationExecutor();
  const pushStore = new InMemoryPushNotificationStore();
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    executor,
    undefined,
    pushStore,
    new DefaultPushNotificationSender(pushStore, { timeout: 2000 }),
  );
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    baseUrl,
    release: () => executor.release(),
    close: () =>
      new Promise<void>((resolve) => {
        executor.release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
