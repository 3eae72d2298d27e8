/** Binding names as cards spell them (`HTTP+JSON`, `REST`, `JSONRPC`, `GRPC`, …) → missive's canonical names. */
export function canonicalBinding(name: string): string {
  const n = name.trim().toLowerCase().replace(/[\s_]/g, '');
  if (n === 'http+json' || n === 'httpjson' || n === 'rest' || n === 'http') return 'http+json';
  if (n === 'jsonrpc' || n === 'json-rpc' || n === 'jsonrpc2.0') return 'json-rpc';
  if (n === 'grpc') return 'grpc';
  return n;
}

/** How the user reads a canonical binding name. */
export const BINDING_LABEL: Record<string, string> = { 'http+json': 'HTTP+JSON', 'json-rpc': 'JSON-RPC', grpc: 'gRPC' };
