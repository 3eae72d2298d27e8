/**
 * Who may talk to `missive mcp serve --http`: the checks every request passes before the MCP transport sees it. The
 * rules are the web console's (web-console/guard.ts), answered in MCP's terms (a JSON-RPC error body):
 *
 *   Host    one of the server's own names (loopback names, or the explicit --host): a DNS-rebinding page whose name
 *           now points at 127.0.0.1 still sends its own name, and gets 403.
 *   Origin  absent (every non-browser client) or exactly the server's own origin; anything else is 403.
 *   Token   this launch's (or --token-file's) token as `Authorization: Bearer <token>`, or as `?token=<token>` on the
 *           URL for clients that can only be given a URL (less private: URLs end up in histories and logs). Compared
 *           in constant time; missing or wrong is 401.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkSource, presentedToken, tokenMatches, type Refusal } from '../web-console/guard.js';

/** Host and Origin (403), then the token (401); null when the request may go on to the MCP transport. */
export function checkMcpRequest(req: IncomingMessage, url: URL, policy: { hosts: Set<string>; token: string }): Refusal | null {
  if (checkSource(req.headers, policy, true)) {
    const host = req.headers.host?.toLowerCase() ?? '';
    const reason = !policy.hosts.has(host)
      ? `this MCP server does not answer to the host name "${host}"`
      : `requests from ${String(req.headers.origin ?? req.headers['sec-fetch-site'])} are refused: only local MCP clients may call this server, not web pages`;
    return { status: 403, reason };
  }
  const header = presentedToken(req.headers);
  const given = req.headers.authorization !== undefined ? header : (url.searchParams.get('token') ?? undefined);
  if (tokenMatches(given, policy.token)) return null;
  return {
    status: 401,
    reason: given
      ? 'wrong MCP token: use the token `missive mcp serve --http` printed (or the one in its --token-file)'
      : 'missing MCP token: send `Authorization: Bearer <token>` with the token `missive mcp serve --http` printed, or add `?token=<token>` to the URL',
  };
}

/** An HTTP error answered as MCP clients expect it: a JSON-RPC error object with no id. */
export function sendJsonRpcError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  const code = status === 401 || status === 403 || status === 404 ? -32001 : -32000;
  res
    .writeHead(status, {
      ...headers,
      'content-type': 'application/json; charset=utf-8',
      ...(status === 401 ? { 'www-authenticate': 'Bearer realm="missive-mcp"' } : {}),
    })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
