/** Messaging an agent: send_message, with the A2A lifecycle in MCP terms (lifecycle.ts). */
import { z } from 'zod';
import { defineTool, type ToolSpec } from '../tool-spec.js';
import { messageParts, partInput } from '../message-parts.js';
import { converse, MAX_ELICITATIONS } from '../lifecycle.js';

const sendMessage = defineTool({
  name: 'send_message',
  title: 'Send a message to an A2A agent',
  description: [
    'Sends one message to a registered A2A agent (see list_agents for aliases and skills) and returns its answer:',
    'the reply text, then any artifacts (text, embedded files, or resource links for large ones), with',
    'structuredContent {agent, task_id, context_id, state, reply, artifacts, next}.',
    'A streaming agent reports the text so far as progress notifications.',
    "To continue a conversation, pass the context_id of an earlier answer; to continue a task (answer the agent's",
    'question), pass its task_id and context_id. If the answer is a task still running (state submitted/working),',
    'call wait_task with its task_id. If the agent needs input (state input_required), the user is asked directly',
    `when the client supports elicitation (up to ${MAX_ELICITATIONS} times); otherwise the result quotes the question`,
    'and the exact send_message call that replies. state auth_required means the user must authenticate first.',
  ].join(' '),
  input: z.strictObject({
    agent: z.string().min(1).describe('The alias of a registered agent (from list_agents).'),
    text: z.string().describe('The message text. May be empty only when parts are given.'),
    parts: z
      .array(partInput)
      .max(64)
      .optional()
      .describe(
        'More parts after the text: {type:"text",text}, {type:"data",data}, {type:"file",bytes_base64,name?,media_type?}, {type:"file_url",url,name?,media_type?}. No local paths.',
      ),
    context_id: z.string().min(1).optional().describe('The context_id of an earlier answer, to continue that conversation.'),
    task_id: z.string().min(1).optional().describe('The task_id of a task to continue (e.g. one in state input_required); give its context_id too.'),
    return_immediately: z
      .boolean()
      .optional()
      .describe('Return as soon as the agent has created the task, without waiting for its answer; follow it with wait_task or get_task.'),
    accepted_output_modes: z
      .array(z.string().min(1))
      .max(32)
      .optional()
      .describe('Media types the answer may use (e.g. ["text/plain", "application/json"]); the agent\'s defaults otherwise.'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  taskSupport: true,
  async run(args, ctx) {
    return converse(ctx, {
      agent: args.agent,
      captured: messageParts(args.text, args.parts),
      ...(args.context_id ? { contextId: args.context_id } : {}),
      ...(args.task_id ? { taskId: args.task_id } : {}),
      ...(args.return_immediately ? { returnImmediately: true } : {}),
      ...(args.accepted_output_modes?.length ? { acceptedOutputModes: args.accepted_output_modes } : {}),
    });
  },
});

export const MESSAGE_TOOLS: readonly ToolSpec[] = [sendMessage];
