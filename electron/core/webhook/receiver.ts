/**
 * The push notification receiver: a node:http listener that accepts A2A StreamResponse callbacks (exactly one of
 * task, message, statusUpdate, artifactUpdate), journals them and updates the task rows. The CLI (`webhook run`) and
 * the Electron tray start the same receiver.
 *
 *   202 accepted and persisted · 400 malformed, nested too deep or not a StreamResponse · 401 auth failure
 *   408 headers or body not received in time (the connection is closed) · 413 over --max-body-bytes
 *   503 + Retry-After: the store could not persist the callback (nothing of it written; the sender tries again)
 *   GET /healthz: the process is up · GET /readyz: the store accepts writes
 *
 * Refused callbacks are journaled through a rejection log (rejection-log.ts): the first of each status per source and
 * minute as `a2a.push.rejected`, the rest counted into one `a2a.push.rejected_summary`, so a flood costs the journal a
 * bounded number of rows. Every write is awaited and its failure handled: a failing store never ends the process.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';
import { VARIANT_EVENT } from '../a2a/stream-response.js';
import { readCallback } from './callback-body.js';
import { call, journalUpdate } from '../store/steps.js';
import { applyUpdateSteps, knownTaskRows } from '../tasks/apply-update.js';
import type { TickValues } from '../store/storage.js';
import { authorised, type WebhookAuth } from './auth.js';
import type { CallbackStore } from './callback-store.js';
import { createRejectionLog, REJECTED_EVENT, type RejectionLog } from './rejection-log.js';
import { isMissiveError, usageError } from '../../../shared/errors.js';
import { parseBoundedJson } from '../security/json-depth.js';
import { watchStoreOutage } from '../store/outage.js';

export interface ReceiverOptions {
  host?: string;
  port?: number;
  path?: string;
  auth?: WebhookAuth;
  maxBodyBytes?: number;
  /** All request headers must arrive within this (node:http answers 408 and closes otherwise). */
  headersTimeoutMs?: number;
  /** The whole body must arrive within this once the headers are in (408, journaled, connection closed). */
  bodyTimeoutMs?: number;
  /** Needed to bind anything but loopback. */
  allowRemote?: boolean;
  /** The rejection log's window (default a minute): one summary per source and window. */
  rejectionWindowMs?: number;
  /** Told, fit to print, when refused callbacks could not be journaled at all (the store still failing at stop). */
  warn?: (message: string) => void;
  /**
   * The receiver's log (the CLI prints it on stderr): the store going away (the callbacks refused with 503 from then
   * on: one line per outage, not one per callback) and coming back (with how many were refused), and a callback the
   * store refused for another reason. Without it, nothing is told.
   */
  log?: (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>) => void;
  /**
   * The delay before trying the store again after `failures` failed tries while it is away (bounded backoff with
   * jitter: the CLI gives jobs/backoff.ts's); default: the Retry-After the senders are given.
   */
  storeRetryDelayMs?: (failures: number) => number;
}

export interface Arrival {
  at: string;
  status: number;
  variant: string | null;
  task_id: string | null;
  event_type: string;
  reason: string | null;
}

export interface ReceiverStats {
  listening: boolean;
  url: string | null;
  accepted: number;
  rejected: number;
  last: Arrival | null;
}

export interface Receiver {
  start(): Promise<{ url: string; host: string; port: number; path: string }>;
  stop(): Promise<void>;
  stats(): ReceiverStats;
  /** Called after every callback, accepted or not (the tray's counter and notifications). */
  onArrival(listener: (arrival: Arrival) => void): () => void;
}

export const DEFAULT_MAX_BODY = 1024 * 1024;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;
/** What a 503 asks the sender to wait before it tries again, in seconds. */
export const STORE_RETRY_AFTER_S = 5;
const JSON_HEADERS = { 'content-type': 'application/json' } as const;
/** The 202 bodies, made once. */
const ACCEPTED = { linked: JSON.stringify({ accepted: true, linked: true }), unlinked: JSON.stringify({ accepted: true, linked: false }) };
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** A duration in seconds, one decimal: `12.3 s`. */
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export const isLoopbackHost = (host: string) => LOOPBACK.has(host) || host.startsWith('127.');

/** The longest headers or body timeout: 1 h (a longer one is no protection, and setTimeout caps at 24.8 days). */
const MAX_TIMEOUT_MS = 3_600_000;

function checkTimeout(flag: string, ms: number): number {
  if (!Number.isSafeInteger(ms) || ms < 1 || ms > MAX_TIMEOUT_MS) throw usageError('out_of_range', `${flag} must be from 1ms to 1h`);
  return ms;
}

export function createReceiver(store: CallbackStore, options: ReceiverOptions = {}): Receiver {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && !options.allowRemote) {
    throw usageError(
      'remote_bind',
      `refusing to listen on ${host}: callbacks would be reachable from the network`,
      'Pass --allow-remote, and put TLS in front of it.',
    );
  }
  if (host !== 'localhost' && !isIP(host)) throw usageError('invalid_host', `--host must be an IP address or localhost, not "${host}"`);
  const path = options.path ?? '/a2a/push';
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const headersTimeout = checkTimeout('--headers-timeout', options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS);
  const bodyTimeout = checkTimeout('--body-timeout', options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS);
  const listeners = new Set<(a: Arrival) => void>();
  const inFlight = new Set<Promise<void>>();
  const counters = { accepted: 0, rejected: 0 };
  let last: Arrival | null = null;
  let server: Server | undefined;
  let url: string | null = null;
  let rejections: RejectionLog | undefined;

  // The store going away is told once, and its coming back once (store/outage.ts); meanwhile it is tried again with
  // backoff, so the "back" line comes even when no callback arrives, and the 503s are counted.
  let refusedWhileAway = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  const log = options.log ?? (() => undefined);
  const outage = watchStoreOutage({
    retryDelayMs: options.storeRetryDelayMs ?? (() => STORE_RETRY_AFTER_S * 1000),
    away: (o) =>
      log(
        'warn',
        `store is away: ${o.message} (${o.code}); callbacks are answered 503 with Retry-After: ${STORE_RETRY_AFTER_S} until it is back, nothing of them written`,
        { event: 'store_away', ...o, retry_after_s: STORE_RETRY_AFTER_S },
      ),
    back: (o) => {
      log('info', `store is back after ${seconds(o.away_ms)}: ${refusedWhileAway} callback(s) were answered 503 meanwhile`, {
        event: 'store_back',
        ...o,
        refused_callbacks: refusedWhileAway,
      });
      refusedWhileAway = 0;
    },
  });
  /** While the store is away and the receiver listens: one try of the store after the backoff's delay. */
  const retryStore = () => {
    if (retryTimer || !outage.away || !server) return;
    retryTimer = setTimeout(() => {
      store.checkWritable().then(
        () => {
          retryTimer = undefined;
          outage.succeeded();
        },
        (error: unknown) => {
          retryTimer = undefined;
          outage.failed(error);
          retryStore();
        },
      );
    }, outage.nextRetryMs());
    retryTimer.unref();
  };

  const reply = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = JSON_HEADERS) => {
    // Answered already, or the sender is gone: nothing to send.
    if (res.headersSent || res.destroyed) return;
    res.writeHead(status, headers).end(JSON.stringify(body));
  };

  // The arrivals of a group are answered within the same millisecond or so: formatted once per millisecond.
  let stamp = { ms: -1, iso: '' };
  const now = () => {
    const ms = Date.now();
    if (ms !== stamp.ms) stamp = { ms, iso: new Date(ms).toISOString() };
    return stamp.iso;
  };

  const arrive = (arrival: Omit<Arrival, 'at'>) => {
    last = { ...arrival, at: now() };
    if (arrival.status === 202) counters.accepted++;
    else counters.rejected++;
    for (const listener of listeners) listener(last);
  };

  /** Journaled (or counted) by the rejection log first, then answered: never fails, whatever the store does. */
  const reject = async (req: IncomingMessage, res: ServerResponse, status: number, reason: string) => {
    const source = req.socket.remoteAddress ?? null;
    await rejections?.record({
      source,
      status,
      reason,
      payload: {
        status,
        reason,
        remote_address: source,
        content_length: req.headers['content-length'] ?? null,
        a2a_version: req.headers['a2a-version'] ?? null,
      },
    });
    arrive({ status, variant: null, task_id: null, event_type: REJECTED_EVENT, reason });
    reply(res, status, { error: { code: status, message: reason } });
  };

  /** The store could not persist an accepted callback: nothing of it was written, and the sender is asked to come back. */
  const unavailable = (res: ServerResponse, eventType: string, taskId: string | null, variant: string, error: unknown) => {
    if (outage.failed(error)) {
      refusedWhileAway++;
      retryStore();
    } else {
      log(
        'error',
        `a callback${taskId ? ` for task ${taskId}` : ''} was answered 503: the store refused it (${isMissiveError(error) ? error.message : 'write failed'})`,
        {
          event: 'callback_refused',
          task_id: taskId,
          code: isMissiveError(error) ? error.code : null,
        },
      );
    }
    const reason = `the store could not take the callback now (${isMissiveError(error) ? error.code : 'write failed'}); nothing of it was written, try again in ${STORE_RETRY_AFTER_S}s`;
    arrive({ status: 503, variant, task_id: taskId, event_type: eventType, reason });
    reply(res, 503, { error: { code: 503, message: reason } }, { ...JSON_HEADERS, 'retry-after': String(STORE_RETRY_AFTER_S) });
  };

  /** The body as text, or why it was not read: over the size limit, or not complete within the body timeout. */
  function readBody(req: IncomingMessage): Promise<string | 'too_large' | 'too_slow'> {
    return new Promise((resolve, fail) => {
      if (Number(req.headers['content-length'] ?? 0) > maxBody) return resolve('too_large');
      const chunks: Buffer[] = [];
      let size = 0;
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        req.removeAllListeners('data').removeAllListeners('end');
        req.off('close', closed);
        outcome();
      };
      const closed = () => settle(() => fail(new Error('the sender closed the connection before the body was complete')));
      const timer = setTimeout(() => settle(() => resolve('too_slow')), bodyTimeout);
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBody) settle(() => resolve('too_large'));
        else chunks.push(chunk);
      });
      req.on('end', () => settle(() => resolve((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString('utf8'))));
      req.on('close', closed);
    });
  }

  async function handleCallback(req: IncomingMessage, res: ServerResponse) {
    if (options.auth && !authorised(options.auth, req.headers)) return reject(req, res, 401, 'missing or wrong callback credentials');
    const body = await readBody(req);
    if (body === 'too_large') {
      await reject(req, res, 413, `body over ${maxBody} bytes`);
      req.destroy();
      return;
    }
    if (body === 'too_slow') {
      // The rest of the body may never come: answer, then close the connection rather than wait for it.
      res.setHeader('connection', 'close');
      return reject(req, res, 408, `body not complete within ${bodyTimeout} ms`);
    }
    let value: unknown;
    try {
      value = parseBoundedJson(body, 'the callback body');
    } catch (error) {
      return reject(req, res, 400, isMissiveError(error) ? error.message : `malformed JSON: ${(error as Error).message}`);
    }
    const checked = readCallback(value, { depthChecked: true });
    if (!checked.ok) return reject(req, res, 400, checked.reason);
    const { record, dialect } = checked;
    const taskId = record.variant === 'task' ? String(record.payload.id) : ((record.payload.taskId as string | undefined) ?? null);
    const a2aVersion = (req.headers['a2a-version'] as string | undefined) ?? null;
    const eventType = `a2a.push.${VARIANT_EVENT[record.variant]}`;
    // On SQLite a group commit (commitGroups, then Store.batch): this callback's rows share a transaction with the
    // callbacks of the same burst and every batch write of that tick (fan-out answers); on PostgreSQL a transaction of
    // their own (callback-store.ts). The 202 goes out only once that transaction has committed.
    const writes = function* (tick?: TickValues) {
      // The task's row names its owner. (A push config cannot name one for a task without a row: push_configs.task_id
      // references tasks, so `push create` writes a placeholder task first.)
      const task = taskId ? yield* call('getTask', taskId) : undefined;
      const owner = task?.agent_alias ?? null;
      if (task && owner) {
        yield* applyUpdateSteps(
          {
            eventPrefix: 'a2a.push',
            source: 'webhook',
            alias: owner,
            protocolVersion: a2aVersion ?? dialect,
            metadata: { 'a2a.inbound_version': a2aVersion, 'a2a.dialect': dialect },
            payload: { a2a_version: a2aVersion, dialect },
            ensured: knownTaskRows(task),
          },
          record,
          tick,
        );
      } else {
        // Nothing links it to a known agent: journal it, unlinked, rather than drop it. It is an update as a linked
        // callback's is (read by its task and type alike): in SQLite's burst, a narrow row with its run.
        yield* journalUpdate(
          {
            type: eventType,
            source: 'webhook',
            contextId: null,
            taskId,
            payload: { a2a_version: a2aVersion, dialect, linked: false, task_id: taskId, [record.variant]: record.payload },
          },
          tick,
        );
      }
      return owner;
    };
    let alias: string | null;
    try {
      alias = await store.persist(writes);
    } catch (error) {
      // Rolled back whole (its transaction or savepoint): 503, and the sender's retry finds the store back.
      return unavailable(res, eventType, taskId, record.variant, error);
    }
    outage.succeeded();
    arrive({ status: 202, variant: record.variant, task_id: taskId, event_type: eventType, reason: null });
    res.writeHead(202, JSON_HEADERS).end(alias !== null ? ACCEPTED.linked : ACCEPTED.unlinked);
  }

  const readyz = (res: ServerResponse) =>
    store.checkWritable().then(
      () => reply(res, 200, { ok: true, store: 'writable' }),
      (error: unknown) => reply(res, 503, { ok: false, store: (error as Error).message }),
    );

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const route = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && route === '/healthz') return reply(res, 200, { ok: true });
    if (req.method === 'GET' && route === '/readyz') return void readyz(res);
    if (route !== path) return reply(res, 404, { error: { code: 404, message: `callbacks go to ${path}` } });
    if (req.method !== 'POST') return reply(res, 405, { error: { code: 405, message: 'POST callbacks only' } });
    const work = handleCallback(req, res)
      .catch((error) => {
        try {
          reply(res, 500, { error: { code: 500, message: (error as Error).message } });
        } catch {
          // The connection is gone: nothing to answer.
        }
      })
      .finally(() => inFlight.delete(work));
    inFlight.add(work);
  };

  return {
    async start() {
      // node:http enforces the headers timeout (408, then closes); the body timer in readBody replaces its requestTimeout.
      server = createServer({ headersTimeout, requestTimeout: 0, connectionsCheckingInterval: Math.min(headersTimeout, 1000) }, handle);
      await new Promise<void>((resolve, rejectStart) => {
        server!.once('error', (error: NodeJS.ErrnoException) =>
          rejectStart(
            error.code === 'EADDRINUSE'
              ? usageError('port_in_use', `port ${options.port} on ${host} is already in use`, 'Pick another --port, or 0 for any free one.')
              : error,
          ),
        );
        server!.listen(options.port ?? 0, host, () => resolve());
      });
      // Made once listening (its window timer would outlive a start that failed); before the first request is read.
      rejections = createRejectionLog({ append: (event) => store.append(event), windowMs: options.rejectionWindowMs, onLost: options.warn });
      const { port } = server.address() as AddressInfo;
      const shown = host.includes(':') ? `[${host}]` : host;
      url = `http://${shown}:${port}${path}`;
      return { url, host, port, path };
    },
    async stop() {
      if (!server) return;
      const s = server;
      server = undefined;
      url = null;
      clearTimeout(retryTimer);
      retryTimer = undefined;
      await new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeIdleConnections();
      });
      // Writes of callbacks already being handled finish before the store closes, then the rejection summaries.
      await Promise.allSettled([...inFlight]);
      await rejections?.close();
    },
    stats: () => ({ listening: server !== undefined, url, ...counters, last }),
    onArrival(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
