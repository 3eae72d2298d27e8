/** The MCP server over standard input and output (the SDK's stdio transport), until the client closes its end. */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { MissiveMcp } from './server.js';

export async function serveMcpStdio(mcp: MissiveMcp, io: { input: Readable; output: Writable }): Promise<void> {
  const server = mcp.newServer();
  const transport = new StdioServerTransport(io.input, io.output);
  const closed = new Promise<void>((resolve) => {
    const before = server.onclose;
    server.onclose = () => {
      before?.();
      resolve();
    };
    io.input.once('end', () => resolve());
    io.input.once('close', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
