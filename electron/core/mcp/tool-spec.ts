/**
 * What one MCP tool is: a name, a description an LLM can act on, a zod input schema (listed as JSON Schema, and the
 * one every call is validated with), and a `run` that calls the same core services as the CLI and the GUI. The server
 * (server.ts) does the rest for every tool alike: validation, journaling, redaction, error reports, progress, tasks.
 */
import type { z } from 'zod';
import type { CallToolResult, ElicitRequestFormParams, ElicitResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { Core } from '../handle.js';

/** The client as it named itself in `initialize` (clientInfo), and what it can do. */
export interface McpClient {
  name: string;
  version: string;
  /** The client declared `elicitation` (form mode): it can ask its user a question on the server's behalf. */
  elicitation: boolean;
}

export interface ToolContext {
  core: Core;
  /** The directory relative paths resolve against (the server's working directory). */
  cwd: string;
  client: McpClient;
  /**
   * Sends a progress notification when the call asked for progress (a `progressToken`), with the text so far as its
   * message; a no-op otherwise. `progress` must grow from one call to the next; the server counts when it is omitted.
   */
  progress(message: string, progress?: number, total?: number): Promise<void>;
  /** Asks the client's user (MCP elicitation, form mode) when the client supports it; undefined when it does not. */
  elicit?: (params: ElicitRequestFormParams) => Promise<ElicitResult>;
  /** Aborted when the client cancels the call (notifications/cancelled) or the connection closes. */
  signal: AbortSignal;
  /** Set when the call runs as an MCP task (a task-augmented tools/call): its id, for results that point back to it. */
  mcpTaskId?: string;
}

export interface ToolSpec<S extends z.ZodObject = z.ZodObject> {
  /** MCP's tool name rules: 1–64 characters of `A-Za-z0-9_-.`, unique in the server. */
  name: string;
  title: string;
  /** What the tool does, when to use it and what it answers: the LLM reads this to choose and call the tool. */
  description: string;
  input: S;
  annotations?: ToolAnnotations;
  /** Registers agents or changes auth: listed and callable only with `--allow-admin`. */
  admin?: boolean;
  /** May run as an MCP task when the client asks for one (`params.task`); otherwise it answers in the call. */
  taskSupport?: boolean;
  run(args: z.output<S>, context: ToolContext): Promise<CallToolResult>;
}

/** Declares a tool with its input's type inferred from its schema. */
export const defineTool = <S extends z.ZodObject>(spec: ToolSpec<S>): ToolSpec => spec as unknown as ToolSpec;
