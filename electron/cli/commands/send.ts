/** `missive send`: one non-streaming SendMessage; presentation only. */
import { Option, type Command } from 'commander';
import { responseText, sendMessage, type SendInput, type SendResult } from '../../core/messaging/send.js';
import { usageError } from '../../../shared/errors.js';
import { BINDINGS } from '../../core/config/schema.js';
import { collect, type Action } from '../program.js';
import { keyValues } from '../human.js';

/** The message inputs shared by send (and later stream, bcast, scatter). Parts are built in the order listed here. */
export function addMessageInputOptions(cmd: Command): Command {
  return cmd
    .option('--stdin', 'read a text part from standard input')
    .option('--part <text=value>', 'text part (repeatable, in order)', collect, [])
    .option('--file <path>', 'UTF-8 text file as a text part (repeatable)', collect, [])
    .option('--file-url <path>', 'local file as a canonical file:// url part; no bytes are sent (repeatable)', collect, [])
    .option('--file-bytes <path>', 'file as a raw part, base64 on the wire (repeatable)', collect, [])
    .option('--json-part <json|@file>', 'data part, application/json (repeatable)', collect, [])
    .option('--media-type <mime>', 'media type for file parts (default: detected from the extension)')
    .option('--metadata <k=v>', 'non-secret message metadata (repeatable)', collect, [])
    .option('--context <id>', 'A2A contextId to continue')
    .option('--task <id>', 'A2A taskId to continue')
    .option('--accepted-output-mode <mime>', 'acceptable output media type (repeatable)', collect, [])
    .option('--push-url <url>', 'register a push callback for the task inline (see `missive webhook run`)')
    .option('--push-token-env <env>', 'env var with the token the agent sends back with each callback')
    .option('--return-immediately', 'ask the agent to answer with the task at once instead of blocking (follow with task wait or barrier)')
    .addOption(new Option('--binding <binding>', 'require this binding').choices([...BINDINGS]));
}

/** Maps the parsed message-input flags to the service input (shared by send, stream, bcast, scatter). */
export async function messageInputsOf(agent: string, message: string | undefined, o: Record<string, any>, deps: { stdin?: () => Promise<string>; cwd: string }): Promise<SendInput> {
  if (o.stdin && !deps.stdin) throw usageError('no_stdin', '--stdin is not available here');
  return {
    agent,
    text: message,
    stdin: o.stdin ? await deps.stdin!() : undefined,
    parts: o.part,
    files: o.file,
    fileUrls: o.fileUrl,
    fileBytes: o.fileBytes,
    jsonParts: o.jsonPart,
    mediaType: o.mediaType,
    metadata: o.metadata,
    contextId: o.context,
    taskId: o.task,
    acceptedOutputModes: o.acceptedOutputMode,
    returnImmediately: o.returnImmediately,
    pushUrl: o.pushUrl,
    pushTokenEnv: o.pushTokenEnv,
    binding: o.binding,
    cwd: deps.cwd,
  };
}

export function registerSendCommand(program: Command, action: Action): void {
  addMessageInputOptions(program.command('send <agent> [message]').description('send one message (SendMessage) and record the result')).action(
    action(async ({ core, out, deps }, agent: string, message: string | undefined, o: Record<string, any>) => {
      const result = await sendMessage(core, await messageInputsOf(agent, message, o, deps));
      out.result('send_result', result, (d: SendResult) =>
        [
          responseText(d.response) ?? `(${d.response_shape} without text)`,
          '',
          keyValues([
            ['via', `${d.selected_interface.binding} ${d.selected_interface.url}`],
            ['message id', d.request.message_id],
            ...(d.task ? ([['task', `${d.task.task_id} (${d.task.state})`], ['context', d.task.context_id], ['artifacts', d.task.artifacts.map((a) => `${a.artifact_id} v${a.version}`)]] as Array<[string, unknown]>) : []),
          ]),
        ].join('\n'),
      );
    }),
  );
}
