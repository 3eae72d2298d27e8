/**
 * The registry's events as Server-Sent Events: every connected page gets every event, numbered. The numbers give the
 * web client what Electron's single IPC pipe gives the window for free, order: an invoke's reply names the last
 * event sent before it (`x-missive-event-id`), and the client delivers the reply only once it has seen that event.
 * A page that reconnects names the last event it saw (`?since=N`) and gets what it missed from a bounded backlog.
 */
import type { ServerResponse } from 'node:http';

export interface EventStreamOptions {
  /** Bytes of recent frames kept for reconnecting pages. */
  backlogBytes?: number;
  /** A comment line this often keeps idle connections (and proxies) open. */
  heartbeatMs?: number;
  /** A page that stops reading is dropped once this much is queued for it (it reconnects with ?since). */
  maxQueuedBytes?: number;
}

export interface EventStream {
  /** The number of the last event sent (0 before the first). */
  readonly lastId: number;
  /** Sends one event to every connected page. */
  broadcast(channel: string, payload: unknown): void;
  /** Turns a response into an event stream: headers, the backlog after `since`, then a `ready` event naming lastId. */
  attach(res: ServerResponse, since: number | undefined, headers: Record<string, string>): void;
  /** How many pages are connected. */
  readonly clients: number;
  /** Ends every stream. */
  close(): void;
}

interface Frame {
  id: number;
  text: string;
}

export function createEventStream(options: EventStreamOptions = {}): EventStream {
  const backlogBytes = options.backlogBytes ?? 8 * 1024 * 1024;
  const maxQueued = options.maxQueuedBytes ?? 64 * 1024 * 1024;
  const clients = new Set<ServerResponse>();
  const backlog: Frame[] = [];
  let backlogSize = 0;
  let lastId = 0;

  const heartbeat = setInterval(() => {
    for (const res of clients) res.write(': keep-alive\n\n');
  }, options.heartbeatMs ?? 15_000);
  heartbeat.unref();

  const send = (res: ServerResponse, text: string) => {
    if (res.writableLength > maxQueued) return void res.end();
    res.write(text);
  };

  return {
    get lastId() {
      return lastId;
    },
    get clients() {
      return clients.size;
    },
    broadcast(channel, payload) {
      const id = ++lastId;
      // JSON.stringify never emits a raw newline, so one data line holds the whole event.
      const text = `id: ${id}\ndata: ${JSON.stringify({ channel, payload })}\n\n`;
      backlog.push({ id, text });
      backlogSize += text.length;
      while (backlogSize > backlogBytes && backlog.length > 1) backlogSize -= backlog.shift()!.text.length;
      for (const res of clients) send(res, text);
    },
    attach(res, since, headers) {
      res.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive', 'x-accel-buffering': 'no' });
      if (since !== undefined) for (const frame of backlog) if (frame.id > since) res.write(frame.text);
      // After the backlog: the page is caught up to here.
      res.write(`id: ${lastId}\nevent: ready\ndata: {"lastId":${lastId}}\n\n`);
      clients.add(res);
      res.on('close', () => clients.delete(res));
    },
    close() {
      clearInterval(heartbeat);
      for (const res of clients) res.end();
      clients.clear();
    },
  };
}
