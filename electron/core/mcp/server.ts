/**
 * missive's MCP face: one MCP server (the official SDK's low-level `Server`) per client connection, over a core shared
 * by every connection of the process. Every tool (tools/*.ts, skill-tools.ts) goes through `callTool` here alike:
 *   - its input is validated with its zod schema, and bad input is an MCP InvalidParams error naming the field;
 *   - it runs as source `mcp` and actor `mcp:<pid>:<client>` (every journal row it writes says so), and the call itself
 *     is journaled as a `missive.mcp.call` event: tool, client, outcome, duration, never the arguments' values;
 *   - its result is redacted by shape and scrubbed of every known secret, then capped (MAX_RESULT_BYTES);
 *   - a missive error becomes a tool result with `isError` and the CLI's report (code, category, exit code, help);
 *   - a task-augmented call (`params.task`) of a tool with `taskSupport` becomes an MCP task that runs on.
 * Admin tools (registering agents, changing auth) are neither listed nor callable without `allowAdmin`.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { z } from 'zod';
import { MissiveError, toMissiveError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { VERSION } from '../version.js';
import { withEventSource } from '../store/event-source.js';
import { withActor } from '../store/actor.js';
import { redactValue, scrubSecrets } from '../security/redact.js';
import { authRefEnvNames, frameSecrets } from '../adapters/frames.js';
import type { McpClient, ToolContext, ToolSpec } from './tool-spec.js';
import { mcpError } from './mcp-error.js';
import { STATIC_TOOLS } from './tools/index.js';
import { skillTools } from './skill-tools.js';
import { createResources, type McpResources } from './resources.js';

/** The largest tool result sent whole (its JSON); a larger one is replaced by a note saying how to get it in parts. */
export const MAX_RESULT_BYTES = 1024 * 1024;

export interface McpServeOptions {
  core: Core;
  cwd: string;
  /** List and allow the tools that register agents and change auth. */
  allowAdmin?: boolean;
  /** Each registered agent's skills become tools of their own (skill-tools.ts). */
  skillTools?: boolean;
}

export interface MissiveMcp {
  /** A new MCP server for one connection (stdio's only one, or one Streamable HTTP session). */
  newServer(): Server;
  /** The tools a client would list now (the docs' generator and the tests read them). */
  listTools(): Promise<Tool[]>;
  close(): Promise<void>;
}

const serverInfo = { name: 'missive', title: 'missive (A2A agents as MCP tools)', version: VERSION };

const INSTRUCTIONS = [
  'missive reaches the A2A agents its user registered. Start with list_agents (skills and capabilities of each),',
  'then send_message to one agent, or bcast/round to a group. An answer that is a task still running comes back with',
  'its task id: follow it with wait_task or get_task. When an agent asks for input, reply with send_message with the',
  'same task_id (and context_id). search_journal and history show what was sent and answered before.',
].join(' ');

/** `[A-Za-z0-9._-]`, at most 64: a client's name as it appears in an actor id. */
const actorName = (name: string): string => name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 64) || 'client';

/** JSON Schema (draft 2020-12) of a tool's zod input, as tools/list lists it. */
function inputJsonSchema(schema: z.ZodObject): Tool['inputSchema'] {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return { ...json, type: 'object' } as Tool['inputSchema'];
}

/** The message of a failed validation: the first issue, naming its field. */
function invalidInput(tool: ToolSpec, error: z.ZodError) {
  const issue = error.issues[0];
  const at = issue?.path.length ? issue.path.join('.') : '';
  if (issue?.code === 'unrecognized_keys') {
    const field = [at, issue.keys[0]].filter(Boolean).join('.');
    const known = at ? '' : ` (its fields: ${Object.keys(tool.input.shape).join(', ') || 'none'})`;
    return mcpError(ErrorCode.InvalidParams, `${tool.name}: "${field}" is not a field of this tool${known}`, { field });
  }
  const field = at || 'arguments';
  return mcpError(ErrorCode.InvalidParams, `${tool.name}: ${field}: ${issue?.message ?? 'is invalid'}`, { field });
}

/** A missive error as a tool result: the message and help for the LLM, the CLI's report as structured content. */
export function errorResult(error: unknown): CallToolResult {
  const report = toMissiveError(error).toReport();
  const text = [`${report.message} [${report.category}::${report.code}]`, report.help ? `Help: ${report.help}` : ''].filter(Boolean).join('\n');
  return { isError: true, content: [{ type: 'text', text }], structuredContent: { error: report } };
}

const taskCancelled = (mcpTaskId: string) =>
  new MissiveError('orchestration', 'mcp_task_cancelled', `MCP task ${mcpTaskId} was cancelled by the client before it ended`, {
    help: 'An A2A task it started goes on at the agent: cancel it with cancel_task, or follow it with wait_task.',
  });

/** A result too large to send whole: a note instead, so a client never receives megabytes it did not ask for. */
function capped(result: CallToolResult, tool: string): CallToolResult {
  const bytes = Buffer.byteLength(JSON.stringify(result));
  if (bytes <= MAX_RESULT_BYTES) return result;
  return {
    isError: result.isError,
    content: [
      {
        type: 'text',
        text: `${tool}'s result is ${bytes} bytes, over the ${MAX_RESULT_BYTES} bytes one result may carry; ask for less (a smaller limit, one task or artifact at a time), or read artifacts as resources.`,
      },
    ],
  };
}

/**
 * The SDK's in-memory task store, plus the runs behind its tasks: `tasks/cancel` (which the SDK answers by marking the
 * task cancelled here) aborts the run, so a cancelled MCP task stops waiting for its A2A task (cancel_task cancels that).
 */
class RunningTaskStore extends InMemoryTaskStore {
  private readonly runs = new Map<string, { controller: AbortController; done: Promise<void> }>();

  /** Runs `work` as the task's run, with a signal that `tasks/cancel` (or close) aborts. */
  run(taskId: string, work: (signal: AbortSignal) => Promise<void>): void {
    const controller = new AbortController();
    const done = work(controller.signal)
      .catch(() => undefined)
      .finally(() => this.runs.delete(taskId));
    this.runs.set(taskId, { controller, done });
  }

  override async updateTaskStatus(...args: Parameters<InMemoryTaskStore['updateTaskStatus']>): Promise<void> {
    await super.updateTaskStatus(...args);
    const [taskId, status] = args;
    if (status === 'cancelled') this.runs.get(taskId)?.controller.abort();
  }

  /** Stops every run (the server is closing) and waits until each has ended. */
  async stopAll(): Promise<void> {
    const runs = [...this.runs.values()];
    for (const { controller } of runs) controller.abort();
    await Promise.all(runs.map((r) => r.done));
  }
}

export function createMissiveMcp(options: McpServeOptions): MissiveMcp {
  const { core, cwd } = options;
  const taskStore = new RunningTaskStore();
  const servers = new Set<Server>();
  // Who subscribed to what: a resource's updates go to the connections that subscribed to it, and the shared watch
  // drops a URI when its last subscriber leaves (unsubscribes or disconnects).
  const subscribers = new Map<string, Set<Server>>();
  const resources: McpResources = createResources(core, {
    notify: (uri) => {
      for (const server of subscribers.get(uri) ?? []) void server.sendResourceUpdated({ uri }).catch(() => undefined);
    },
  });
  const subscribe = async (server: Server, uri: string) => {
    const those = subscribers.get(uri);
    if (those) return void those.add(server);
    // Claimed before the watch answers, so two connections subscribing at once make one subscription of the watch.
    const first = new Set([server]);
    subscribers.set(uri, first);
    try {
      await resources.subscribe(uri);
    } catch (error) {
      if (subscribers.get(uri) === first) subscribers.delete(uri);
      throw error;
    }
  };
  const unsubscribe = (server: Server, uri: string) => {
    const those = subscribers.get(uri);
    if (!those?.delete(server) || those.size > 0) return;
    subscribers.delete(uri);
    resources.unsubscribe(uri);
  };
  // The auth refs' env vars, read at start and again after every call (a call, or the CLI meanwhile, may add one): the
  // read runs after the answer went out, and the next call waits for it before it scrubs anything.
  let refEnvNames: string[] = [];
  const readRefEnvNames = () =>
    authRefEnvNames(core)
      .then((names) => void (refEnvNames = names))
      .catch(() => undefined);
  let secretsReady = readRefEnvNames();
  // Each call's `missive.mcp.call` row is written just after its answer is sent (setImmediate: after the answer's
  // write), in call order; the next call, and close(), wait for it.
  let journaled: Promise<void> = Promise.resolve();
  const afterAnswer = (work: () => Promise<void>): void => {
    journaled = journaled.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(work);
  };
  const scrub = <T>(value: T): T => scrubSecrets(redactValue(value), frameSecrets(core, refEnvNames));

  const tools = async (): Promise<ToolSpec[]> => {
    const own = STATIC_TOOLS.filter((tool) => options.allowAdmin || !tool.admin);
    return options.skillTools ? [...own, ...(await skillTools(core, new Set(own.map((t) => t.name))))] : own;
  };
  const listTools = async (): Promise<Tool[]> =>
    (await tools()).map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: inputJsonSchema(tool.input),
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
      ...(tool.taskSupport ? { execution: { taskSupport: 'optional' as const } } : {}),
    }));

  /** Journals one call (source `mcp`): what was called, by which client, and how it ended. Never fails the call. */
  const journalCall = async (entry: { tool: string; client: McpClient; ok: boolean; code?: string; durationMs: number; mcpTaskId?: string }) => {
    try {
      const storage = await core.storage();
      await storage.journal.append({
        type: 'missive.mcp.call',
        source: 'mcp',
        payload: {
          tool: entry.tool,
          client: { name: entry.client.name, version: entry.client.version },
          ok: entry.ok,
          // A failed call always names a code (`events list --outcome failed` finds it by this field).
          ...(entry.ok ? {} : { error_code: entry.code ?? 'tool_error' }),
          duration_ms: entry.durationMs,
          ...(entry.mcpTaskId ? { mcp_task_id: entry.mcpTaskId } : {}),
        },
      });
    } catch (error) {
      core.warn(`an MCP call could not be journaled: ${toMissiveError(error).message}`);
    }
  };

  function newServer(): Server {
    const server = new Server(serverInfo, {
      capabilities: {
        tools: { listChanged: false },
        resources: { subscribe: true, listChanged: false },
        logging: {},
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      instructions: INSTRUCTIONS,
      taskStore,
    });
    servers.add(server);
    server.onclose = () => {
      servers.delete(server);
      for (const uri of [...subscribers.keys()]) unsubscribe(server, uri);
    };

    const clientOf = (): McpClient => {
      const info = server.getClientVersion();
      return { name: info?.name ?? 'unknown', version: info?.version ?? '', elicitation: Boolean(server.getClientCapabilities()?.elicitation) };
    };

    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await listTools() }));

    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const tool = (await tools()).find((t) => t.name === request.params.name);
      if (!tool) {
        const admin = STATIC_TOOLS.some((t) => t.admin && t.name === request.params.name);
        throw mcpError(
          ErrorCode.InvalidParams,
          admin
            ? `${request.params.name} is off: it registers agents or changes auth; start "missive mcp serve --allow-admin" to allow it`
            : `no tool named "${request.params.name}"`,
        );
      }
      const parsed = tool.input.safeParse(request.params.arguments ?? {});
      if (!parsed.success) throw invalidInput(tool, parsed.error);
      const client = clientOf();
      if (request.params.task && tool.taskSupport && extra.taskStore) {
        const task = await extra.taskStore.createTask({ ttl: request.params.task.ttl ?? 60 * 60_000, pollInterval: 1000 });
        const store = extra.taskStore;
        taskStore.run(task.taskId, async (signal) => {
          const result = await callTool(tool, parsed.data, client, request, extra, { signal, mcpTaskId: task.taskId });
          await store.storeTaskResult(task.taskId, result.isError ? 'failed' : 'completed', result);
        });
        return { task };
      }
      return callTool(tool, parsed.data, client, request, extra, { signal: extra.signal });
    });

    server.setRequestHandler(ListResourcesRequestSchema, async (request) => scrub(await resources.list(request.params?.cursor)));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: resources.templates() }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => scrub(await resources.read(request.params.uri)));
    server.setRequestHandler(SubscribeRequestSchema, async (request) => (await subscribe(server, request.params.uri), {}));
    server.setRequestHandler(UnsubscribeRequestSchema, async (request) => (unsubscribe(server, request.params.uri), {}));
    return server;
  }

  async function callTool(
    tool: ToolSpec,
    args: unknown,
    client: McpClient,
    request: CallToolRequest,
    extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
    run: { signal: AbortSignal; mcpTaskId?: string },
  ): Promise<CallToolResult> {
    await Promise.all([secretsReady, journaled]);
    const progressToken = request.params._meta?.progressToken;
    let step = 0;
    const context: ToolContext = {
      core,
      cwd,
      client,
      signal: run.signal,
      mcpTaskId: run.mcpTaskId,
      progress: async (message, progress, total) => {
        if (progressToken === undefined) return;
        step = Math.max(step + 1, progress ?? 0);
        const params = { progressToken, progress: step, message: scrub(message), ...(total !== undefined ? { total } : {}) };
        await extra.sendNotification({ method: 'notifications/progress', params }).catch(() => undefined);
      },
      // A call that runs as an MCP task has answered already: nobody waits on this request to show a question, so an
      // agent's question comes back in the task's result instead (the fallback text).
      elicit:
        client.elicitation && !run.mcpTaskId
          ? (params) => extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema, { signal: run.signal })
          : undefined,
    };
    const started = performance.now();
    const actor = { id: `mcp:${process.pid}:${actorName(client.name)}` };
    let result: CallToolResult;
    try {
      result = await withActor(actor, () => withEventSource('mcp', () => tool.run(args as never, context)));
    } catch (error) {
      result = errorResult(error);
    }
    // An MCP task the client cancelled (tasks/cancel) ends as that, whatever the run had got to.
    if (run.mcpTaskId && run.signal.aborted) result = errorResult(taskCancelled(run.mcpTaskId));
    result = capped(scrub(result), tool.name);
    const code = (result.structuredContent as { error?: { code?: string } } | undefined)?.error?.code;
    const entry = { tool: tool.name, client, ok: !result.isError, code, durationMs: Math.round(performance.now() - started), mcpTaskId: run.mcpTaskId };
    afterAnswer(() => withActor(actor, () => journalCall(entry)));
    secretsReady = journaled.then(readRefEnvNames);
    return result;
  }

  return {
    newServer,
    listTools,
    async close() {
      await taskStore.stopAll();
      await Promise.all([journaled, secretsReady]);
      await Promise.allSettled([...servers].map((server) => server.close()));
      resources.close();
      taskStore.cleanup();
    },
  };
}
