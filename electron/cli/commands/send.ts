/** `missive send`: one non-streaming SendMessage; presentation only. */
import type { Command, OptionValues } from 'commander';
import { responseText, sendMessage, type SendResult } from '../../core/messaging/send.js';
import type { Action } from '../command-context.js';
import { addMessageInputOptions, messageInputsOf } from '../message-options.js';
import { withAgentTarget } from '../../core/agents/ad-hoc.js';
import { keyValues } from '../human.js';
import { addShowWireOption, wireView } from '../wire-view.js';

export function registerSendCommand(program: Command, action: Action): void {
  addShowWireOption(
    addMessageInputOptions(program.command('send <agent> [message]').description('send one message (SendMessage) and record the result')),
  ).action(
    action(async (ctx, agent: string, message: string | undefined, o: OptionValues) => {
      const { core, out, deps } = ctx;
      const wire = wireView(ctx, o);
      // A URL's agent is registered only when the send succeeds (ad-hoc.ts).
      const result = await withAgentTarget(core, agent, async (alias) =>
        sendMessage(core, { ...(await messageInputsOf(alias, message, o, deps)), wire: wire.capture }),
      ).catch((error: unknown) => {
        throw wire.failed(error);
      });
      out.result('send_result', wire.attach(result), (d: SendResult) =>
        [
          responseText(d.response) ?? `(the ${d.response_shape} has no text, data or file)`,
          '',
          keyValues([
            ['via', `${d.selected_interface.binding} ${d.selected_interface.url}`],
            ['message id', d.request.message_id],
            ...(d.task
              ? ([
                  ['task', `${d.task.task_id} (${d.task.state})`],
                  ['context', d.task.context_id],
                  ['artifacts', d.task.artifacts.map((a) => `${a.artifact_id} v${a.version}`)],
                ] as Array<[string, unknown]>)
              : []),
          ]),
        ].join('\n'),
      );
    }),
  );
}
