/**
 * The local web console (`missive ui --web`): the built renderer and the whole IPC contract over HTTP, for anyone
 * without Electron and for the browser tests. One handler registry, the same the desktop app binds to IPC:
 *
 *   GET  /…             the renderer's files (index.html with connect-src 'self'): no secret in them, no token needed
 *   POST /api/invoke    {channel, input} → the registry's IpcResult, `x-missive-event-id` naming the last event sent
 *   GET  /api/events    the registry's events as Server-Sent Events ({channel, payload}, numbered; `?since=N`)
 *
 * The URL to open is `http://<the address bound>:<port>/#token=…`: the fragment reaches no server (nor any log); the
 * page keeps the token in its session storage and sends it as `Authorization: Bearer` on every API request. No
 * cookie is set or read. Every request passes guard.ts first (Host, Origin: 403; on the API the token: 401).
 * Loopback only unless allowNonLoopback.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isLoopbackHost } from '../../../shared/origins.js';
import { MissiveError, usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { createRegistry, type Registry } from '../ipc/registry.js';
import { allowedHosts, checkSource, checkToken, isUnspecifiedHost, newToken, urlHost, type Refusal } from './guard.js';
import { checkBindHost, externalAddress, listenOn, machineNames } from './bind.js';
import { loadRenderer } from './static-files.js';
import { createEventStream } from './event-stream.js';
import { readBody } from './request-body.js';

export interface WebConsoleOptions {
  core: Core;
  /** Where relative paths of the contract's inputs resolve (files to attach, export directories). */
  cwd: string;
  /** The built renderer: a directory holding index.html (dist/renderer). */
  rendererDir: string;
  /** Default 127.0.0.1 (which `localhost` means too). Anything but loopback needs allowNonLoopback. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  allowNonLoopback?: boolean;
  /** Default: 32 random bytes, base64url, new for every launch. */
  token?: string;
  /** Follow the journal and push `events.appended` this often. */
  tailEventsMs?: number;
  /** The host's directory picker; absent, `dialogs.chooseDirectory` answers null. */
  chooseDirectory?: (title?: string) => Promise<string | null>;
  /** Largest request body; beyond it, 413. Default 32 MiB. */
  maxBodyBytes?: number;
  /** Told when the console listens on a non-loopback address. */
  onWarning?: (message: string) => void;
}

export interface WebConsole {
  /** The URL to open: the origin, with the token in the fragment (`/#token=…`). */
  url: string;
  /** `http://` + the address bound (never a name) + the port. */
  origin: string;
  token: string;
  /** The address bound. */
  host: string;
  port: number;
  registry: Registry;
  close(): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  void res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));

const sendError = (res: ServerResponse, status: number, error: MissiveError, headers: Record<string, string> = {}) =>
  sendJson(res, status, { ok: false, error: error.toReport() }, headers);

const refuse = (res: ServerResponse, refusal: Refusal) =>
  void res
    .writeHead(refusal.status, {
      'content-type': 'text/plain; charset=utf-8',
      ...(refusal.status === 401 ? { 'www-authenticate': 'Bearer realm="missive"' } : {}),
    })
    .end(`${refusal.status} ${refusal.reason}\n`);

export async function startWebConsole(options: WebConsoleOptions): Promise<WebConsole> {
  checkBindHost(options.host ?? '127.0.0.1', options.allowNonLoopback, {
    serve: 'the web console',
    exposes: 'it can do everything missive can',
    listens: 'the console listens',
  });
  // The name `localhost` may resolve to ::1 or 127.0.0.1, and a browser given it tries ::1 first: whoever listens
  // there at this port would get the page, fragment and all. So the console binds an address and prints that address.
  const host = !options.host || options.host === 'localhost' ? '127.0.0.1' : options.host;
  const requestedPort = options.port ?? 0;
  if (!Number.isInteger(requestedPort) || requestedPort < 0 || requestedPort > 65535)
    throw usageError('invalid_port', `--port must be from 0 to 65535, not ${requestedPort}`);
  const token = options.token ?? newToken();
  if (token.length < 16) throw usageError('weak_token', 'the console token must be at least 16 characters');
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const files = await loadRenderer(options.rendererDir);
  const baseHeaders: Record<string, string> = {
    'content-security-policy': files.policy,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
  };

  const events = createEventStream();
  let registry: Registry;
  try {
    registry = createRegistry({
      core: options.core,
      cwd: options.cwd,
      tailEventsMs: options.tailEventsMs,
      chooseDirectory: options.chooseDirectory,
      emit: (channel, payload) => events.broadcast(channel, payload),
    });
  } catch (error) {
    events.close();
    throw error;
  }
  // Filled once the port is known; no request is answered before.
  const policy = { hosts: new Set<string>(), token };

  async function invoke(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== 'POST') return sendError(res, 405, usageError('method_not_allowed', 'invoke takes POST'), { allow: 'POST' });
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json')
      return sendError(res, 415, usageError('unsupported_media_type', 'invoke takes a JSON body (content-type: application/json)'));
    const body = await readBody(req, maxBody);
    if ('tooLarge' in body) return sendError(res, 413, usageError('body_too_large', `the request body is over ${maxBody} bytes`));
    let call: unknown;
    try {
      call = JSON.parse(body.text);
    } catch {
      return sendError(res, 400, usageError('invalid_json', 'the request body is not JSON'));
    }
    const { channel, input } = (call ?? {}) as { channel?: unknown; input?: unknown };
    if (typeof call !== 'object' || Array.isArray(call) || typeof channel !== 'string')
      return sendError(res, 400, usageError('invalid_call', 'the body must be {"channel": "<name>", "input": {…}}'));
    const result = await registry.invoke(channel, input);
    sendJson(res, 200, result, { 'x-missive-event-id': String(events.lastId) });
  }

  function eventStream(req: IncomingMessage, res: ServerResponse, url: URL) {
    if (req.method !== 'GET') return sendError(res, 405, usageError('method_not_allowed', 'the event stream takes GET'), { allow: 'GET' });
    const raw = url.searchParams.get('since') ?? req.headers['last-event-id'];
    const since = typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
    events.attach(res, since, {});
  }

  async function staticFile(req: IncomingMessage, res: ServerResponse, url: URL) {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return void res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('405 method not allowed\n');
    const file = await files.read(url.pathname);
    if (!file) return void res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404 not found\n');
    res.writeHead(200, { 'content-type': file.type, 'content-length': String(file.body.length) });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    for (const [name, value] of Object.entries(baseHeaders)) res.setHeader(name, value);
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://console.invalid');
    } catch {
      return void res.writeHead(400).end();
    }
    const api = url.pathname.startsWith('/api/');
    const source = checkSource(req.headers, policy, api);
    if (source) return refuse(res, source);
    // The renderer's files are the same for everyone (the token arrives in the fragment, which no request carries).
    if (!api) return staticFile(req, res, url);
    const auth = checkToken(req.headers, policy);
    if (auth) return refuse(res, auth);
    if (url.pathname === '/api/invoke') return invoke(req, res);
    if (url.pathname === '/api/events') return eventStream(req, res, url);
    return sendError(res, 404, usageError('not_found', `no console API at ${url.pathname}`));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      // Never a stack trace on the wire: the registry already turns handler failures into reports.
      if (!res.headersSent) sendError(res, 500, new MissiveError('internal', 'console_failed', 'the web console failed to answer this request'));
      else res.destroy();
    });
  });

  let address: AddressInfo;
  try {
    address = await listenOn(server, requestedPort, host, 'the web console');
  } catch (error) {
    events.close();
    await registry.dispose();
    throw error;
  }
  const port = address.port;
  policy.hosts = allowedHosts(host, port, isUnspecifiedHost(host) ? machineNames() : undefined);
  if (!isLoopbackHost(host))
    options.onWarning?.(
      `the web console listens on ${host}:${port}, beyond this machine: whoever has its URL can do everything missive can, over plain HTTP; put TLS in front of it`,
    );
  const origin = `http://${urlHost(isUnspecifiedHost(host) ? externalAddress() : address.address)}:${port}`;

  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/#token=${token}`,
    origin,
    token,
    host,
    port,
    registry,
    close() {
      closing ??= (async () => {
        events.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await registry.dispose();
        await closed;
      })();
      return closing;
    },
  };
}
