/**
 * The transport in a browser, against `missive ui --web` (electron/core/web-console): invokes are POSTs to
 * /api/invoke, events arrive over one EventSource from /api/events. Authentication is the console's HttpOnly cookie,
 * set when the printed URL was opened; this code never sees the token.
 *
 * Order: Electron's IPC pipe delivers a call's events before its reply. Here they travel on two connections, so each
 * reply names the last event sent before it (`x-missive-event-id`), and the reply is handed over only once that event
 * has been delivered (waiting at most `orderWaitMs`).
 * Reconnects: a broken stream is reopened with `?since=<last event seen>` (the console replays what was missed),
 * after 250 ms, 500 ms, … up to 5 s, and given up after `maxReconnects` failures in a row.
 */
import type { Channel, ChannelInput, IpcError, IpcResult } from '../../../shared/ipc/contract';
import type { Transport } from './types';

export interface WebTransportOptions {
  /** Prefix of the console's paths; '' is this page's origin. */
  base?: string;
  maxReconnects?: number;
  orderWaitMs?: number;
}

type Listener = (payload: unknown) => void;

const failure = (category: string, reason: string, message: string, exitCode: number, help?: string): IpcError => ({
  code: `missive::${category}::${reason}`,
  category,
  message: `${category} error: ${message}`,
  exit_code: exitCode,
  ...(help ? { help } : {}),
});

const unreachable = () => failure('transport', 'console_unreachable', 'the web console does not answer', 69, 'Is `missive ui --web` still running? Start it again and open the URL it prints.');
const refused = (status: number) =>
  status === 401
    ? failure('auth', 'console_token', 'the web console refused this page: its token is missing or from another launch', 77, 'Open the URL `missive ui --web` printed (it carries this launch\'s token).')
    : failure('transport', 'console_refused', `the web console answered HTTP ${status}`, 69);

const isResult = (value: unknown): value is IpcResult<Channel> =>
  typeof value === 'object' && value !== null && typeof (value as { ok?: unknown }).ok === 'boolean' && ((value as { ok: boolean }).ok ? 'data' in value : typeof (value as { error?: unknown }).error === 'object');

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createWebTransport(options: WebTransportOptions = {}): Transport {
  const base = options.base ?? '';
  const maxReconnects = options.maxReconnects ?? 8;
  const orderWaitMs = options.orderWaitMs ?? 3000;
  const listeners = new Map<string, Set<Listener>>();
  const waiters = new Set<{ id: number; resolve: () => void }>();
  /** The number of the last event delivered (or announced by `ready`). */
  let seen = 0;
  let down = false;
  let failures = 0;
  let source: EventSource | undefined;
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const release = () => {
    for (const waiter of waiters) {
      if (down || waiter.id <= seen) {
        waiters.delete(waiter);
        waiter.resolve();
      }
    }
  };

  const deliver = (event: MessageEvent<string>) => {
    const id = Number(event.lastEventId);
    if (Number.isFinite(id) && id > 0 && id <= seen) return; // replayed twice across a reconnect
    let message: { channel?: unknown; payload?: unknown };
    try {
      message = JSON.parse(event.data) as typeof message;
    } catch {
      return;
    }
    if (Number.isFinite(id) && id > seen) seen = id;
    if (typeof message.channel === 'string') for (const listener of [...(listeners.get(message.channel) ?? [])]) listener(message.payload);
    release();
  };

  function connect() {
    const es = new EventSource(`${base}/api/events${seen ? `?since=${seen}` : ''}`);
    source = es;
    es.addEventListener('ready', (event) => {
      failures = 0;
      try {
        seen = Math.max(seen, Number((JSON.parse((event as MessageEvent<string>).data) as { lastId?: number }).lastId) || 0);
      } catch {
        /* a ready without a number still means connected */
      }
      markReady();
      release();
    });
    es.addEventListener('message', deliver);
    es.addEventListener('error', () => {
      // Reconnects are ours (bounded), not the browser's (endless).
      es.close();
      if (source !== es) return;
      failures += 1;
      if (failures > maxReconnects) {
        down = true;
        markReady();
        release();
        return;
      }
      setTimeout(connect, Math.min(250 * 2 ** (failures - 1), 5000));
    });
  }
  connect();

  /** Resolves once event `id` was delivered, the stream gave up, or `orderWaitMs` passed. */
  const delivered = (id: number) =>
    down || id <= seen
      ? Promise.resolve()
      : Promise.race([new Promise<void>((resolve) => waiters.add({ id, resolve })), sleep(orderWaitMs)]);

  return {
    async invoke<C extends Channel>(channel: C, input: ChannelInput<C>): Promise<IpcResult<C>> {
      // A call's events are pushed while it runs: listen before calling (the first call waits for the stream).
      await Promise.race([ready, sleep(orderWaitMs)]);
      let response: Response;
      try {
        response = await fetch(`${base}/api/invoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ channel, input }),
          credentials: 'same-origin',
          cache: 'no-store',
        });
      } catch {
        return { ok: false, error: unreachable() };
      }
      const body: unknown = await response.json().catch(() => undefined);
      if (!isResult(body)) return { ok: false, error: refused(response.status) };
      const lastEvent = Number(response.headers.get('x-missive-event-id'));
      if (Number.isFinite(lastEvent) && lastEvent > 0) await delivered(lastEvent);
      return body as IpcResult<C>;
    },
    on(channel, listener) {
      const set = listeners.get(channel) ?? new Set<Listener>();
      listeners.set(channel, set);
      // One entry per subscription, as the preload does: subscribing the same function twice needs two unsubscribes.
      const entry: Listener = (payload) => listener(payload as never);
      set.add(entry);
      return () => void set.delete(entry);
    },
  };
}
