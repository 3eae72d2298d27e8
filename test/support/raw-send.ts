/**
 * A plain JSON-RPC SendMessage (one text part) posted with fetch, below every client library: what a test uses to see
 * the bytes an agent answers (its status, its JSON-RPC error code) rather than what a client makes of them.
 */
import { randomUUID } from 'node:crypto';

export function postJsonRpcSend(url: string, text: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } },
    }),
  });
}
