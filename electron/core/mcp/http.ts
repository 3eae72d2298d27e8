/**
 * The MCP server over Streamable HTTP (`missive mcp serve --http`): the SDK's StreamableHTTPServerTransport at `/mcp`,
 * one transport and one MCP server (`mcp.newServer()`) per session. A POST without `Mcp-Session-Id` may open a session
 * (the SDK answers anything but `initialize` with 400); the session's id comes back in `Mcp-Session-Id`, and every
 * later POST, the GET that opens the server's SSE stream, and the DELETE that ends the session carry it. An unknown
 * session is 404 (the client starts a new one). At most MAX_SESSIONS stay open (the least recently used one is ended
 * first); close() ends every session.
 *
 * Every request passes http-access.ts first (Host, Origin: 403; the token: 401). Bodies are bounded (413 over
 * maxBodyBytes, before anything is parsed). Loopback only unless allowRemote, with a warning.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { isLoopbackHost } from '../../../shared/origins.js';
import { allowedHosts, isUnspecifiedHost, newToken, urlHost } from '../web-console/guard.js';
import { checkMcpRequest, sendJsonRpcError } from './http-access.js';
import { checkBindHost, externalAddress, listenOn, machineNames } from '../web-console/bind.js';
import type { MissiveMcp } from './server.js';

export interface McpHttpOptions {
  /** Default 127.0.0.1. Anything but loopback needs allowRemote. */
  host?: string;
  /** 0: any free port. */
  port: number;
  allowRemote: boolean;
  warn(message: string): void;
  /** The token clients must present; default a new random one (32 bytes, base64url) for this launch. */
  token?: string;
  /** The largest request body; beyond it, 413. Default 4 MiB. */
  maxBodyBytes?: number;
}

export interface McpHttp {
  /** `http://127.0.0.1:<port>/mcp` (the address bound, never a name). */
  url: string;
  token: string;
  close(): Promise<void>;
}

export const MCP_PATH = '/mcp';
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Open sessions kept at most: beyond it the least recently used one is ended (a client that never sends DELETE). */
export const MAX_SESSIONS = 64;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
}

export async function startMcpHttp(mcp: MissiveMcp, options: McpHttpOptions): Promise<McpHttp> {
  const host = options.host ?? '127.0.0.1';
  checkBindHost(host, options.allowRemote, {
    serve: 'MCP',
    exposes: 'its tools can reach every registered agent with your credentials',
    listens: 'the server listens',
  });
  const token = options.token ?? newToken();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const policy = { hosts: new Set<string>(), token };
  const sessions = new Map<string, Session>();
  /** Transports not yet initialized (a session in the making), so close() ends them too. */
  const pending = new Set<Session>();
  let closing: Promise<void> | undefined;

  /** A new transport and MCP server for a POST without a session id: kept when the SDK initializes the session. */
  async function openSession(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const server = mcp.newServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: maxBodyBytes,
      onsessioninitialized: (id) => {
        sessions.set(id, session);
        const oldest = sessions.size > MAX_SESSIONS ? sessions.values().next().value : undefined;
        if (oldest) void oldest.server.close().catch(() => undefined);
      },
    });
    const session: Session = { transport, server };
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      pending.delete(session);
    };
    pending.add(session);
    await server.connect(transport);
    try {
      await transport.handleRequest(req, res);
    } finally {
      pending.delete(session);
      // Not an initialize (400), too large (413), or malformed: nothing to keep.
      if (!transport.sessionId || !sessions.has(transport.sessionId)) await server.close().catch(() => undefined);
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://mcp.invalid');
    } catch {
      return sendJsonRpcError(res, 400, 'malformed request URL');
    }
    const refusal = checkMcpRequest(req, url, policy);
    if (refusal) return sendJsonRpcError(res, refusal.status, refusal.reason);
    if (url.pathname !== MCP_PATH) return sendJsonRpcError(res, 404, `no MCP endpoint at ${url.pathname}: it is ${MCP_PATH}`);
    if (closing) return sendJsonRpcError(res, 503, 'the MCP server is stopping');
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session) return sendJsonRpcError(res, 404, 'Session not found: it ended (DELETE, or the server restarted); initialize a new one');
      // Most recently used last: the order MAX_SESSIONS evicts in.
      sessions.delete(sessionId);
      sessions.set(sessionId, session);
      return session.transport.handleRequest(req, res);
    }
    if (req.method === 'POST') return openSession(req, res);
    if (req.method === 'GET' || req.method === 'DELETE')
      return sendJsonRpcError(res, 400, `Bad Request: ${req.method} needs the Mcp-Session-Id header of an initialized session`);
    return sendJsonRpcError(res, 405, `${req.method ?? 'this method'} is not allowed on ${MCP_PATH}`, { allow: 'GET, POST, DELETE' });
  }

  const httpServer = createServer((req, res) => {
    handle(req, res).catch(() => {
      // Never a stack trace on the wire.
      if (!res.headersSent) sendJsonRpcError(res, 500, 'the MCP server failed to answer this request');
      else res.destroy();
    });
  });
  const address = await listenOn(httpServer, options.port, host, 'the MCP server');
  policy.hosts = allowedHosts(host, address.port, isUnspecifiedHost(host) ? machineNames() : undefined);
  if (!isLoopbackHost(host))
    options.warn(
      `the MCP server listens on ${host}:${address.port}, beyond this machine: whoever has its token can reach every registered agent with your credentials, over plain HTTP; put TLS in front of it`,
    );
  const shown = isUnspecifiedHost(host) ? externalAddress() : address.address;

  return {
    url: `http://${urlHost(shown)}:${address.port}${MCP_PATH}`,
    token,
    close() {
      closing ??= (async () => {
        const all = [...sessions.values(), ...pending];
        sessions.clear();
        pending.clear();
        await Promise.allSettled(all.map((session) => session.server.close()));
        const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
        httpServer.closeAllConnections();
        await closed;
      })();
      return closing;
    },
  };
}
