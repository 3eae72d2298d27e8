/**
 * An MCP client (the official SDK's) connected to `missive mcp serve` as a child process over stdio, as an IDE or a
 * desktop chat app would launch it. Every JSON-RPC message each way is kept as text (`wire`), so a test can assert a
 * secret never went over it; the child's stderr is kept too.
 */
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Sandbox } from './cli.js';

export interface McpSession {
  client: Client;
  /** Every message sent and received, as JSON text, in order. */
  wire: string[];
  stderr(): string;
  close(): Promise<void>;
}

/** Keeps a copy of every message that goes over `transport`, either way. */
export function recordWire(transport: Transport, wire: string[]): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => (wire.push(JSON.stringify(message)), send(message, options));
  const start = transport.start.bind(transport);
  transport.start = async () => {
    const onmessage = transport.onmessage;
    transport.onmessage = (message, extra) => (wire.push(JSON.stringify(message)), onmessage?.(message, extra));
    return start();
  };
}

/**
 * The progress messages of the last `tool` call on `wire`, in the order they went over it, and whether every one
 * preceded the call's response. Read from the wire because the SDK client runs notification handlers a microtask
 * late: a notification read in the same chunk as the response reaches no `onprogress`, though it was sent first.
 */
export function wireProgress(wire: string[], tool: string): { messages: string[]; beforeResponse: boolean } {
  const messages = wire.map((line) => JSON.parse(line));
  const call = messages.filter((m) => m.method === 'tools/call' && m.params?.name === tool).at(-1);
  if (!call) throw new Error(`no ${tool} call on the wire`);
  const token = call.params._meta?.progressToken;
  const response = messages.findIndex((m) => m.id === call.id && ('result' in m || 'error' in m));
  const notes = messages.map((m, i) => ({ m, i })).filter(({ m }) => m.method === 'notifications/progress' && m.params.progressToken === token);
  return { messages: notes.map(({ m }) => String(m.params.message)), beforeResponse: response >= 0 && notes.every(({ i }) => i < response) };
}

/**
 * Launches `node bin/missive.js mcp serve <args>` in the sandbox's home and connects a client named `name` with
 * `capabilities` (e.g. `{ elicitation: {} }`); `setup` runs before the connection (notification and request handlers).
 */
export async function connectStdio(
  box: Sandbox,
  args: string[] = [],
  options: { name?: string; capabilities?: ClientOptions['capabilities']; env?: NodeJS.ProcessEnv; setup?: (client: Client) => void } = {},
): Promise<McpSession> {
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['bin/missive.js', 'mcp', 'serve', ...args],
    cwd: process.cwd(),
    env: { ...(box.env as Record<string, string>), ...(options.env as Record<string, string>) },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk) => void (stderr += String(chunk)));
  const wire: string[] = [];
  recordWire(transport, wire);
  const client = new Client({ name: options.name ?? 'missive-test-client', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  options.setup?.(client);
  await client.connect(transport);
  return { client, wire, stderr: () => stderr, close: () => client.close() };
}
