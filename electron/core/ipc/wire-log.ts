/**
 * The wire of this session's recent sends and streams, in memory, by request message id: what `history.get` shows for
 * a call the GUI made (failed ones too). Nothing of it is written to disk. Bounded twice: at most `limit` calls and
 * about `maxChars` of recorded text (bodies and frames); the oldest calls go first, the newest is always kept.
 * `recordWireCalls` runs a send or stream with a capture and logs what it recorded.
 */
import { randomUUID } from 'node:crypto';
import type { WireExchange } from '../../../shared/ipc/contract.js';
import { createWireCapture, type WireCapture } from '../a2a/wire.js';

export interface WireLog {
  record(messageId: string, exchanges: WireExchange[]): void;
  /** The call's exchanges, or null when this session did not record it (or it was evicted). */
  get(messageId: string): WireExchange[] | null;
}

export interface WireLogLimits {
  limit?: number;
  maxChars?: number;
}

/** About how much text a call's exchanges hold (what dominates their memory). */
function sizeOf(exchanges: WireExchange[]): number {
  let chars = 0;
  for (const e of exchanges) {
    chars += (e.request.body?.length ?? 0) + (e.response?.body?.length ?? 0) + 512;
    for (const frame of e.frames ?? []) chars += frame.data.length + 32;
  }
  return chars;
}

export function createWireLog({ limit = 200, maxChars = 64 * 1024 * 1024 }: WireLogLimits = {}): WireLog {
  const byId = new Map<string, { exchanges: WireExchange[]; chars: number }>();
  let total = 0;
  const drop = (messageId: string) => {
    const entry = byId.get(messageId);
    if (!entry) return;
    total -= entry.chars;
    byId.delete(messageId);
  };
  return {
    record(messageId, exchanges) {
      drop(messageId);
      const chars = sizeOf(exchanges);
      byId.set(messageId, { exchanges, chars });
      total += chars;
      while (byId.size > 1 && (byId.size > limit || total > maxChars)) drop(byId.keys().next().value!);
    },
    get: (messageId) => byId.get(messageId)?.exchanges ?? null,
  };
}

/** What a send or stream gets to record its wire: the capture, and the message id it is logged under. */
export interface WireOptions {
  wire?: WireCapture;
  messageId?: string;
}

export interface WireCalls {
  /**
   * Runs `call` with a wire capture when `wanted`: the exchanges go on the result as `wire` and into the log under the
   * request's message id, also when the call fails (then `failed(error)` gives them, for the error report).
   */
  run<T extends object>(wanted: boolean | undefined, call: (options: WireOptions) => Promise<T>): Promise<T | (T & { wire: WireExchange[] })>;
  failed(error: unknown): WireExchange[] | undefined;
}

export function recordWireCalls(log: WireLog): WireCalls {
  const ofFailures = new WeakMap<object, WireExchange[]>();
  return {
    async run(wanted, call) {
      if (!wanted) return call({});
      const capture = createWireCapture();
      const messageId = randomUUID();
      try {
        const result = await call({ wire: capture, messageId });
        const wire = capture.exchanges();
        log.record(messageId, wire);
        return { ...result, wire };
      } catch (error) {
        const wire = capture.exchanges();
        log.record(messageId, wire);
        if (error !== null && typeof error === 'object') ofFailures.set(error, wire);
        throw error;
      }
    },
    failed: (error) => (error !== null && typeof error === 'object' ? ofFailures.get(error) : undefined),
  };
}
