/**
 * An MCP (JSON-RPC) error whose message goes over the wire as written. The SDK's McpError puts "MCP error <code>: "
 * before the message, and a client adds the same prefix again when it reads the error, so a client would show it twice.
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';

export function mcpError(code: number, message: string, data?: unknown): McpError {
  const error = new McpError(code, message, data);
  error.message = message;
  return error;
}
