/** The agent logic of the test peers built on the SDK server: answers each message with `<prefix><its text>`. */
import { randomUUID } from 'node:crypto';
import { Message } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';

const textOf = (message: Message) => message.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

export class EchoExecutor implements AgentExecutor {
  /** `onMessage` sees each message as it arrives (a peer that records what it was sent). */
  constructor(
    private readonly prefix = 'echo: ',
    private readonly onMessage?: (message: Message) => void,
  ) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    this.onMessage?.(ctx.userMessage);
    bus.publish(
      AgentEvent.message(
        Message.fromJSON({
          messageId: randomUUID(),
          contextId: ctx.contextId,
          role: 'ROLE_AGENT',
          parts: [{ text: `${this.prefix}${textOf(ctx.userMessage)}` }],
        }),
      ),
    );
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}
