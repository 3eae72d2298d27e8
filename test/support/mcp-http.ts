/**
 * `missive mcp serve --http --port 0 --json` as a child process (the built CLI), as a program that launches it would
 * run it: the URL and the token read from its --json output; and the official SDK client connected to it over
 * Streamable HTTP with the token as `Authorization: Bearer`, every message each way kept as text (`wire`).
 */
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Sandbox } from './cli.js';
import { recordWire } from './mcp.js';
import { firstJsonDocument, spawnMissive, type MissiveProcess } from './missive-process.js';

export interface HttpServer {
  process: MissiveProcess;
  /** The `mcp_server` result's data: `url`, and `bearer` (null with --token-file) and `token_file`. */
  data: { url: string; bearer: string | null; token_file: string | null };
  url: string;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
}

/** Launches the server and waits (bounded) for its one --json document on stdout. */
export async function serveHttp(box: Sandbox, args: string[] = []): Promise<HttpServer> {
  const child = spawnMissive(['mcp', 'serve', '--http', '--port', '0', '--json', ...args], box.env);
  let exited = false;
  void child.exited.then(() => void (exited = true));
  const envelope = await firstJsonDocument(child, 'mcp serve --http');
  expectKind(envelope.kind);
  const data = envelope.data as HttpServer['data'];
  return {
    process: child,
    data,
    url: data.url,
    async stop() {
      if (!exited) child.child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill(), 10_000);
      try {
        return await child.exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

function expectKind(kind: string): void {
  if (kind !== 'mcp_server') throw new Error(`expected an mcp_server result, got ${kind}`);
}

/** The SDK client over Streamable HTTP: the token as a bearer header, or none (when `url` carries `?token=`). */
export async function connectHttp(
  url: string,
  token?: string,
  name = 'missive-http-test-client',
): Promise<{ client: Client; transport: StreamableHTTPClientTransport; wire: string[] }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : undefined,
  });
  const wire: string[] = [];
  recordWire(transport, wire);
  const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return { client, transport, wire };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): any;
}

/** One raw HTTP request (node:http, so Host and Origin are exactly what the test says), its whole answer. */
export function rawRequest(url: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'POST', headers: options.headers, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} in 10 s`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** An `initialize` request body, as a client's first POST. */
export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '1.0.0' } },
});

/** The headers a Streamable HTTP POST carries. */
export const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } as const;
