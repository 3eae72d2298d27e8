/**
 * The transport in a browser, against `missive ui --web` (electron/core/web-console): invokes are POSTs to
 * /api/invoke, events arrive as Server-Sent Events over one streamed fetch of /api/events (not EventSource, which
 * cannot send a header). Every request carries the launch's token as `Authorization: Bearer` (console-token.ts took
 * it from the printed URL's fragment); no cookie is sent or used.
 *
 * Order: Electron's IPC pipe delivers a call's events before its reply. Here they travel on two connections, so each
 * reply names the last event sent before it (`x-missive-event-id`), and the reply is handed over only once that event
 * has been delivered (waiting at most `orderWaitMs`).
 * Reconnects: a broken stream is reopened with `?since=<last event seen>` (the console replays what was missed),
 * after 250 ms, 500 ms, … up to 5 s, and given up after `maxReconnects` failures in a row.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { Channel, ChannelInput, IpcError, IpcResult } from '../../../shared/ipc/contract';
import type { Transport } from './types';

export interface WebTransportOptions {
  /** Prefix of the console's paths; '' is this page's origin. */
  base?: string;
  /** The console's token (absent: every call is refused with `auth::console_token`). */
  token?: string;
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

const unreachable = () =>
  failure(
    'transport',
    'console_unreachable',
    'the web console does not answer',
    69,
    'Is `missive ui --web` still running? Start it again and open the URL it prints.',
  );
const refused = (status: number) =>
  status === 401
    ? failure(
        'auth',
        'console_token',
        'the web console refused this page: its token is missing or from another launch',
        77,
        "Open the URL `missive ui --web` printed, in this tab (it carries this launch's token; a new tab or window needs it again).",
      )
    : failure('transport', 'console_refused', `the web console answered HTTP ${status}`, 69);

const isResult = (value: unknown): value is IpcResult<Channel> =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { ok?: unknown }).ok === 'boolean' &&
  ((value as { ok: boolean }).ok ? 'data' in value : typeof (value as { error?: unknown }).error === 'object');

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createWebTransport(options: WebTransportOptions = {}): Transport {
  const base = options.base ?? '';
  const maxReconnects = options.maxReconnects ?? 8;
  const orderWaitMs = options.orderWaitMs ?? 3000;
  const auth: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
  const listeners = new Map<string, Set<Listener>>();
  const waiters = new Set<{ id: number; resolve: () => void }>();
  /** The number of the last event delivered (or announced by `ready`). */
  let seen = 0;
  let down = false;
  let failures = 0;
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

  const deliver = (event: EventSourceMessage) => {
    const id = Number(event.id);
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

  const onReady = (data: string) => {
    failures = 0;
    try {
      seen = Math.max(seen, Number((JSON.parse(data) as { lastId?: number }).lastId) || 0);
    } catch {
      /* a ready without a number still means connected */
    }
    markReady();
    release();
  };

  const giveUp = () => {
    down = true;
    markReady();
    release();
  };

  /** One connection: its frames until it ends or breaks, then the next one (after a pause, a bounded number of times). */
  async function connect() {
    const parser = createParser({ onEvent: (event) => (event.event === 'ready' ? onReady(event.data) : event.event ? undefined : deliver(event)) });
    try {
      const response = await fetch(`${base}/api/events${seen ? `?since=${seen}` : ''}`, { headers: auth, credentials: 'omit', cache: 'no-store' });
      // A refused token stays refused: no reconnects, every call reports it.
      if (response.status === 401 || response.status === 403) return giveUp();
      if (response.ok && response.body) {
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.feed(value);
        }
      }
    } catch {
      /* the console is gone or the connection broke: reconnect below */
    }
    failures += 1;
    if (failures > maxReconnects) return giveUp();
    setTimeout(() => void connect(), Math.min(250 * 2 ** (failures - 1), 5000));
  }
  void connect();

  /** Resolves once event `id` was delivered, the stream gave up, or `orderWaitMs` passed. */
  const delivered = (id: number) =>
    down || id <= seen ? Promise.resolve() : Promise.race([new Promise<void>((resolve) => waiters.add({ id, resolve })), sleep(orderWaitMs)]);

  return {
    async invoke<C extends Channel>(channel: C, input: ChannelInput<C>): Promise<IpcResult<C>> {
      // A call's events are pushed while it runs: listen before calling (the first call waits for the stream).
      await Promise.race([ready, sleep(orderWaitMs)]);
      let response: Response;
      try {
        response = await fetch(`${base}/api/invoke`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ channel, input }),
          credentials: 'omit',
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
