/**
 * Renders the channel reference of docs/automation.md from the IPC contract (shared/ipc/contract.ts): for every
 * request channel its description, a table of its input and output fields and their JSON Schemas (`z.toJSONSchema`);
 * the same for every event channel's payload. `build/gen-automation-doc.mjs` writes it between the
 * `<!-- generated:channels:begin -->` / `<!-- generated:channels:end -->` markers, and test/unit/automation-doc.test.ts
 * fails when the committed text differs from what the contract renders now. Descriptions live here as a
 * `Record<Channel, string>`: a channel added to the contract without one does not compile.
 */
import { z } from 'zod';
import { CHANNELS, EVENT_CHANNELS, type Channel, type EventChannel } from '../../../shared/ipc/contract.js';

export const GENERATED_BEGIN = '<!-- generated:channels:begin -->';
export const GENERATED_END = '<!-- generated:channels:end -->';
/** The command that rewrites the generated section. */
export const REGENERATE_COMMAND = 'npm run docs:automation';

/** What each request channel does, in a sentence or two (the GUI view that uses it in parentheses). */
export const CHANNEL_DESCRIPTIONS: Record<Channel, string> = {
  'app.info': 'Version, active profile, known profiles and where config, state and the database live (the About panel).',
  'agents.list': 'The registered agents of the profile (the Agents view).',
  'agents.add':
    'Registers an agent by alias and base URL (or card URL) with its auth ref, trusted origins, interfaces, mutual TLS files and card keys; the card is fetched first and a card that cannot be fetched or read registers nothing. Answers the agent as listed.',
  'agents.set': 'Changes what `agent set` changes: the auth ref (null: none), the mutual TLS files (null: removed), the card-signing keys (null: removed).',
  'agents.rawCard': 'The card exactly as the agent (or a URL) serves it, read or refused: every issue missive finds and the raw JSON.',
  'agents.remove': 'Forgets a registered agent (its journal rows stay).',
  'agents.trust':
    "Shared store: this host confirms the agent's origins and auth ref as the store has them now; until then (and after a change by someone else) no credential of this host goes to it.",
  'agents.inspect':
    'Fetches (or, without `refresh`, reuses the cached) agent card, the interface missive would pick and the protocol negotiation; `extended` asks for the authenticated extended card.',
  'agents.refreshAll': 'Re-fetches the card of every registered agent, at most 4 at once; one failure does not stop the others.',
  'agents.health': 'What missive knows of each agent without contacting it: card cache age, last good call, last error.',
  'agents.conformance': 'Probes every advertised operation on every card interface (`missive conformance`); read-only unless `includeSend`.',
  'messages.send':
    'Sends a message (the Compose view, `missive send`) and answers the response: a message or a task. `wire: true` adds every HTTP/gRPC exchange of the call.',
  'messages.stream':
    'Streams a message (`missive stream`): each stream event goes out as a `messages.stream.event` event while the call runs; the reply counts them.',
  'requests.preview': 'Builds the request(s) a send, stream or collective would make without sending anything (Copy as curl).',
  'history.list': 'Past sends and streams, newest first, paged by `beforeSequence` (the History view).',
  'history.get': 'One past send or stream with its journaled request and answer; `wire` when this adapter session captured it.',
  'groups.list': 'The groups of agents used by the collectives.',
  'groups.show': 'One group with its members in rank order.',
  'groups.create': 'Creates (or replaces) a group from agent aliases.',
  'groups.addMember': 'Adds an agent to a group, or moves a member to `rank`.',
  'groups.removeMember': 'Removes a member from a group (the agent stays registered).',
  'groups.update': "Changes a group's routing policy and/or notes.",
  'groups.delete': 'Deletes a group (not its agents).',
  'collectives.bcast': 'Sends the same message to every member of a group in one context; each member outcome goes out as a `collectives.member` event.',
  'collectives.barrier': 'Waits until the members of a group have finished their tasks in a context (`local`: judge from the journal only).',
  'collectives.gather': "Collects each member's latest answer in a context.",
  'collectives.answers':
    "Each member's answer where it arrived, without a gather (nothing journaled): by the task or request a bcast, scatter or barrier reported for it.",
  'collectives.reduce': "Combines the members' answers in a context into one text (summarise, vote, merge, rank, or a custom template/reducer agent).",
  'collectives.round': 'bcast then reduce in one call: a full round of a group conversation.',
  'tasks.list': 'Tasks the journal knows, filtered by agent, context or state, paged (the Tasks view).',
  'tasks.get': 'One task with its artifacts, from the journal or (`remote`) fetched from its agent.',
  'tasks.cancel': 'Asks the agent to cancel a task and answers its new state.',
  'tasks.wait': 'Waits until a task reaches a final (or input-required) state; `exit_code` says how it ended.',
  'tasks.follow':
    'One step of following a task that is not final: SubscribeToTask (bounded) or GetTask, then its view, question and answer text (Compose, Tasks, History, Contexts).',
  'artifacts.show': 'One artifact of a task with its parts.',
  'artifacts.export': 'Writes the artifacts of a task as files into a directory (relative paths resolve against the adapter’s working directory).',
  'events.query':
    'The journal (the Events view): one bounded page of the newest rows (or of rows before or after a sequence), filtered by type, context, task or free text, and `next` to read on; payloads are redacted.',
  'contexts.list': 'The conversation contexts with their names and state (the Contexts view).',
  'contexts.create': 'Creates a named context to send into.',
  'contexts.fork': 'Copies a context (its history) into a new one.',
  'contexts.thread': "A context's conversation, messages and artifacts oldest first.",
  'contexts.export': 'A context as a `missive.context_export.v1` document.',
  'webhook.start': 'Starts the push-notification receiver on 127.0.0.1 (`port` 0 or absent: any free port); arrivals go out as `webhook.arrival` events.',
  'webhook.stop': 'Stops the push-notification receiver.',
  'webhook.status': 'Whether the receiver listens, where, and how many notifications it accepted and rejected.',
  'webhook.callbacks': 'The newest push callbacks the journal holds (time, task, state, the body as journaled, redacted), accepted and refused.',
  'auth.list': 'The auth refs (where each secret comes from, never the secret) and the state of the keyring.',
  'auth.add': 'Defines an auth ref (like `missive auth add`): where its secret lives and its flow; never the secret.',
  'auth.update': 'Replaces the settings of a local auth ref under the same name; the agents using it follow.',
  'auth.bind': "Shared store: on this host, the auth ref's secret comes from this env var or keyring entry (the shared row never decides which).",
  'auth.remove': 'Removes a local auth ref; the agents that used it are unlinked (`unlinked_agents`).',
  'auth.setSecret': 'Stores the secret of a keyring auth ref in the keyring; nothing of it is echoed back.',
  'auth.deleteSecret': 'Deletes the secret of a keyring auth ref from the keyring.',
  'auth.login': 'Runs the flow of an auth ref (or of an agent’s auth ref); a device-code flow sends an `auth.deviceCode` event with the code to enter.',
  'auth.status': 'Each auth ref (or the one named) with its flow and whether a token is cached.',
  'auth.logout': 'Drops the cached token of an auth ref.',
  'dialogs.chooseDirectory': 'The desktop directory picker. An adapter has no desktop: it always answers `{"path": null}`; pass paths in inputs instead.',
  'demo.start': 'Starts the built-in demo agents on 127.0.0.1 and registers them; they stop with the adapter.',
};

/** What each event channel carries. */
export const EVENT_DESCRIPTIONS: Record<EventChannel, string> = {
  'messages.stream.event': 'One event of a running `messages.stream` call; the frame carries the request’s `id`.',
  'collectives.member': 'One member’s outcome during `collectives.bcast` or `collectives.round`; the frame carries the request’s `id`.',
  'webhook.arrival': 'A push notification reached the receiver started by `webhook.start` (accepted or rejected).',
  'auth.deviceCode': 'A device-code `auth.login` waits for the user: open `verification_uri` and enter `user_code`; the frame carries the request’s `id`.',
  'app.notice':
    'A warning of the core that stopped nothing (e.g. credentials sent over plain http, a result without a kind); the desktop shows it as a notice.',
  'events.appended': 'New journal rows, batched (at most 1000 per tick); only with `adapter stdio --follow-events`.',
};

type JsonSchema = { [key: string]: unknown };

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
};

/** A one-line summary of a property's JSON Schema type: `string`, `"a" \| "b"`, `string[]`, `object`, … */
function typeOf(schema: JsonSchema | undefined): string {
  if (!schema || Object.keys(schema).length === 0) return 'any';
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(union)) return union.map((s) => typeOf(s)).join(' | ');
  const type = schema.type;
  if (Array.isArray(type)) return type.join(' | ');
  if (type === 'array') return ((item) => (item.includes(' | ') ? `(${item})[]` : `${item}[]`))(typeOf(schema.items as JsonSchema | undefined));
  if (type === 'string') {
    const { minLength: min, maxLength: max } = schema as { minLength?: number; maxLength?: number };
    return min !== undefined || max !== undefined ? `string (${min ?? 0}–${max ?? '∞'} chars)` : 'string';
  }
  if (type === 'integer' || type === 'number') {
    const { minimum: min, maximum: max } = schema as { minimum?: number; maximum?: number };
    const range = min !== undefined && max !== undefined && max < Number.MAX_SAFE_INTEGER ? ` ${min}–${max}` : min !== undefined ? ` ≥ ${min}` : '';
    return `${type}${range}`;
  }
  return typeof type === 'string' ? type : 'any';
}

/** The top-level fields of an object schema as a Markdown table (or a sentence when it has none). */
function fieldTable(schema: JsonSchema): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const names = Object.keys(properties);
  if (schema.type !== 'object' || (schema.anyOf ?? schema.oneOf)) return `One of: ${typeOf(schema).replace(/\|/g, 'or')} (see the schema).`;
  const rest = schema.additionalProperties === false ? '' : names.length === 0 ? 'An object (more fields may appear).' : 'More fields may appear.';
  if (names.length === 0) return schema.additionalProperties === false ? 'No fields: `{}`.' : rest;
  const rows = names.map((name) => `| \`${name}\` | ${typeOf(properties[name]).replace(/\|/g, '\\|')} | ${required.has(name) ? 'yes' : 'no'} |`);
  return ['| field | type | required |', '|---|---|---|', ...rows, ...(rest ? ['', rest] : [])].join('\n');
}

/** JSON with short objects and arrays kept on one line (at most `width` characters). */
export function compactJson(value: unknown, indent = '', width = 100): string {
  const flat = JSON.stringify(value);
  if (flat === undefined) return 'null';
  if (value === null || typeof value !== 'object' || indent.length + flat.length <= width) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((v) => inner + compactJson(v, inner, width)).join(',\n')}\n${indent}]`;
  const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${inner}${JSON.stringify(k)}: ${compactJson(v, inner, width)}`);
  return `{\n${entries.join(',\n')}\n${indent}}`;
}

const schemaBlock = (title: string, schema: JsonSchema) =>
  [`<details><summary>${title} JSON Schema</summary>`, '', '```json', compactJson(schema), '```', '', '</details>'].join('\n');

/** The Markdown of one request channel. */
export function renderChannel(channel: Channel): string {
  const spec = CHANNELS[channel];
  const input = toSchema(spec.input, 'input');
  const output = toSchema(spec.output, 'output');
  return [
    `### \`${channel}\``,
    '',
    CHANNEL_DESCRIPTIONS[channel],
    '',
    '**Input**',
    '',
    fieldTable(input),
    '',
    schemaBlock('Input', input),
    '',
    '**Output** (`value` of the reply)',
    '',
    fieldTable(output),
    '',
    schemaBlock('Output', output),
  ].join('\n');
}

/** The Markdown of one event channel. */
export function renderEventChannel(channel: EventChannel): string {
  const payload = toSchema(EVENT_CHANNELS[channel], 'output');
  return [`### \`${channel}\` (event)`, '', EVENT_DESCRIPTIONS[channel], '', '**Payload**', '', fieldTable(payload), '', schemaBlock('Payload', payload)].join(
    '\n',
  );
}

/** The whole generated section (without the markers): an index, then every request channel, then every event channel. */
export function renderChannelReference(): string {
  const channels = Object.keys(CHANNELS) as Channel[];
  const events = Object.keys(EVENT_CHANNELS) as EventChannel[];
  const anchor = (name: string) => `#${name.replace(/[^a-z0-9 -]/gi, '').toLowerCase()}`;
  return [
    '<!-- Generated from shared/ipc/contract.ts by electron/core/adapters/contract-doc.ts; do not edit by hand. Regenerate: ' + REGENERATE_COMMAND + ' -->',
    '',
    `## Request channels (${channels.length})`,
    '',
    channels.map((c) => `- [\`${c}\`](${anchor(c)}) — ${CHANNEL_DESCRIPTIONS[c].split(/(?<=\.)\s/)[0]}`).join('\n'),
    '',
    channels.map(renderChannel).join('\n\n'),
    '',
    `## Event channels (${events.length})`,
    '',
    'Sent as `{"event": channel, "id"?: request id, "payload": …}` frames while the adapter runs.',
    '',
    events.map(renderEventChannel).join('\n\n'),
  ].join('\n');
}

/** The text between the markers of a document (null when it lacks them). */
export function generatedSection(document: string): string | null {
  const begin = document.indexOf(GENERATED_BEGIN);
  const end = document.indexOf(GENERATED_END);
  if (begin === -1 || end === -1 || end < begin) return null;
  return document
    .slice(begin + GENERATED_BEGIN.length, end)
    .replace(/^\n/, '')
    .replace(/\n$/, '');
}

/** The document with its generated section replaced by `section`; throws when the markers are missing. */
export function spliceGenerated(document: string, section: string = renderChannelReference()): string {
  const begin = document.indexOf(GENERATED_BEGIN);
  const end = document.indexOf(GENERATED_END);
  if (begin === -1 || end === -1 || end < begin) throw new Error(`the document lacks the ${GENERATED_BEGIN} … ${GENERATED_END} markers`);
  return `${document.slice(0, begin + GENERATED_BEGIN.length)}\n${section}\n${document.slice(end)}`;
}
