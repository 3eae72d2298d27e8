/** `missive stream`: SendStreamingMessage with each event rendered as it arrives; presentation only. */
import type { Command, OptionValues } from 'commander';
import { streamMessage, type StreamEventView, type StreamResult } from '../../core/messaging/stream.js';
import type { Action } from '../command-context.js';
import { keyValues } from '../human.js';
import { addShowWireOption, wireView } from '../wire-view.js';
import { addMessageInputOptions, messageInputsOf } from '../message-options.js';
import { withAgentTarget } from '../../core/agents/ad-hoc.js';

const eventLine = (e: StreamEventView): string => {
  const head = `#${e.sequence} ${e.variant}`;
  const state = e.state ? ` ${e.state}` : '';
  const artifact = e.artifact
    ? ` ${e.artifact.artifact_id} v${e.artifact.version}${e.artifact.append ? ' +append' : ''}${e.artifact.last_chunk ? ' (last chunk)' : ''}`
    : '';
  const text = e.text ? `: ${e.text.length > 160 ? `${e.text.slice(0, 157)}...` : e.text}` : '';
  return `${head}${state}${artifact}${text}`;
};

export function registerStreamCommand(program: Command, action: Action): void {
  addShowWireOption(
    addMessageInputOptions(
      program
        .command('stream <agent> [message]')
        .description('send one message with SendStreamingMessage and follow the SSE stream, recording every event')
        .option('--force', 'stream even when the Agent Card does not advertise streaming'),
    ),
  ).action(
    action(async (ctx, agent: string, message: string | undefined, o: OptionValues) => {
      const { core, out, deps } = ctx;
      const wire = wireView(ctx, o);
      // A URL's agent is registered only when the stream succeeds (ad-hoc.ts).
      const result = await withAgentTarget(core, agent, async (alias) =>
        streamMessage(core, {
          ...(await messageInputsOf(alias, message, o, deps)),
          force: o.force,
          wire: wire.capture,
          onEvent: (e) => out.event('stream_event', e, eventLine),
        }),
      ).catch((error: unknown) => {
        throw wire.failed(error);
      });
      out.result('stream_result', wire.attach(result), (d: StreamResult) =>
        [
          '',
          keyValues([
            ['via', `${d.selected_interface.binding} ${d.selected_interface.url}`],
            [
              'events',
              `${d.events} (task ${d.counts.task}, message ${d.counts.message}, status ${d.counts.status_update}, artifact ${d.counts.artifact_update})`,
            ],
            ...(d.task
              ? ([
                  ['task', `${d.task.task_id} (${d.task.state ?? 'unknown'})`],
                  ['artifacts', d.task.artifacts.map((a) => `${a.artifact_id} v${a.version}`)],
                ] as Array<[string, unknown]>)
              : []),
            ['context', d.context_id],
            ['answer', d.answer_text ?? undefined],
          ]),
        ].join('\n'),
      );
    }),
  );
}
