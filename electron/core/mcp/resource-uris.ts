/**
 * The `missive://` resource URIs: what each names, their templates (resources/templates/list), and the MCP errors a
 * URI gets when it is not one of them (InvalidParams) or names nothing the store holds (-32002, resource not found).
 * Every id in a URI is percent-encoded, so an alias, a context name or an id with a `/` stays one segment.
 */
import { ErrorCode, McpError, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { mcpError } from './mcp-error.js';
import { artifactUri, parseArtifactUri } from './parts.js';

/** MCP's "resource not found" (the specification's -32002; the SDK's ErrorCode has no name for it). */
export const RESOURCE_NOT_FOUND = -32002;

export type MissiveUri =
  | { kind: 'card'; alias: string }
  | { kind: 'thread'; context: string }
  | { kind: 'task'; taskId: string }
  | { kind: 'artifact'; taskId: string; artifactId: string };

export const cardUri = (alias: string): string => `missive://agent/${encodeURIComponent(alias)}/card`;
export const threadUri = (contextId: string): string => `missive://context/${encodeURIComponent(contextId)}/thread`;
export const taskUri = (taskId: string): string => `missive://task/${encodeURIComponent(taskId)}`;
export { artifactUri };

export const RESOURCE_TEMPLATES: ResourceTemplate[] = [
  {
    uriTemplate: 'missive://agent/{alias}/card',
    name: 'agent-card',
    title: 'Agent Card',
    description:
      "A registered agent's Agent Card as missive cached it (JSON; no network). An agent whose card was never fetched has none yet: inspect it first.",
    mimeType: 'application/json',
  },
  {
    uriTemplate: 'missive://context/{context}/thread',
    name: 'context-thread',
    title: 'Conversation thread',
    description: "A context's conversation (by id or local name): its messages and its tasks' artifacts, oldest first (JSON; file bytes summarised).",
    mimeType: 'application/json',
  },
  {
    uriTemplate: 'missive://task/{task_id}',
    name: 'task',
    title: 'Task',
    description: 'A task as the local journal knows it: state, status message and artifacts (JSON). Subscribe to it while it runs to hear when it changes.',
    mimeType: 'application/json',
  },
  {
    uriTemplate: 'missive://artifact/{task_id}/{artifact_id}',
    name: 'artifact',
    title: 'Task artifact',
    description: 'One artifact of a task, whole: one entry per part, text or a base64 blob (a file). Subscribe to it while its task runs.',
  },
];

const decode = (segment: string): string | null => {
  try {
    const value = decodeURIComponent(segment);
    return value ? value : null;
  } catch {
    return null;
  }
};

/** The URI as an error message quotes it: at most 200 characters. */
export const quoted = (uri: string): string => JSON.stringify(uri.length > 200 ? `${uri.slice(0, 200)}…` : uri);

/** A `missive://` URI → what it names; InvalidParams for any other URI, naming it and the templates. */
export function parseMissiveUri(uri: string): MissiveUri {
  const artifact = parseArtifactUri(uri);
  if (artifact) return { kind: 'artifact', ...artifact };
  const card = /^missive:\/\/agent\/([^/]+)\/card$/.exec(uri);
  const thread = /^missive:\/\/context\/([^/]+)\/thread$/.exec(uri);
  const task = /^missive:\/\/task\/([^/]+)$/.exec(uri);
  const value = decode((card ?? thread ?? task)?.[1] ?? '');
  if (value !== null) {
    if (card) return { kind: 'card', alias: value };
    if (thread) return { kind: 'thread', context: value };
    return { kind: 'task', taskId: value };
  }
  throw mcpError(
    ErrorCode.InvalidParams,
    `unknown resource URI ${quoted(uri)}: missive's resources are ${RESOURCE_TEMPLATES.map((t) => t.uriTemplate).join(', ')}`,
    { uri },
  );
}

/** -32002 for a URI of the right shape that names nothing the store holds; `why` says what is missing and what to do. */
export const notFound = (uri: string, why: string): McpError => mcpError(RESOURCE_NOT_FOUND, `resource not found: ${quoted(uri)}: ${why}`, { uri });
