/** A wait a run can cut short: the load engine's timers (the schedule, GetTask backoff, the end-of-run grace). */
import { setTimeout as delay } from 'node:timers/promises';

/** Waits `ms`, or less when the signal aborts; never rejects. */
export const sleepAbortable = (ms: number, signal: AbortSignal): Promise<void> => delay(ms, undefined, { signal }).catch(() => undefined);
