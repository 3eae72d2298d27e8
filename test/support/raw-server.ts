/** A small raw HTTP server on 127.0.0.1 for the edge cases an SDK peer will not produce. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

export interface RawServer {
  url: string;
  requests: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: string }>;
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

export async function startRawServer(): Promise<RawServer> {
  const routes = new Map<string, Handler>();
  const requests: RawServer['requests'] = [];
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- node:http ignores the handler's promise; a throw in this test peer surfaces as an unhandled rejection, which fails the run
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '/').split('?')[0]!;
    requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
    const handler = routes.get(path);
    if (!handler) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 404, message: 'not found' } }));
      return;
    }
    await handler(req, res, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    route: (path, handler) => void routes.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void =>
  void res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));

export const minimalCard = (url: string, extra: Record<string, unknown> = {}) => ({
  name: 'Raw Agent',
  description: 'edge-case peer',
  version: '0.0.1',
  supportedInterfaces: [{ url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
  capabilities: { streaming: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'Echo', tags: ['text', 'Testing'] }],
  ...extra,
});
