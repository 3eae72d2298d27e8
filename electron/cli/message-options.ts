/** The message-input options of send, stream, bcast and round, and their mapping to the messaging service's input. */
import { Option, type Command, type OptionValues } from 'commander';
import type { SendInput } from '../core/messaging/send.js';
import { usageError } from '../../shared/errors.js';
import { BINDINGS } from '../core/config/schema.js';
import { collect } from './options.js';

/** Adds the message-input options (parts, files, metadata, context, push, binding). Parts are built in the order listed here. */
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

/** Maps the parsed message-input flags to the service input (send, stream, bcast, round). */
export async function messageInputsOf(
  agent: string,
  message: string | undefined,
  o: OptionValues,
  deps: { stdin?: () => Promise<string>; cwd: string },
): Promise<SendInput> {
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
