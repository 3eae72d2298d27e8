/**
 * A journal timestamp as operators read it: local time plus relative age ("14:03:12 · 5 min ago"), the ISO time in
 * the title attribute. One shared clock re-renders every mounted <Time> every 15 seconds, so ages stay current.
 */
import { useSyncExternalStore } from 'react';

const TICK_MS = 15_000;
const listeners = new Set<() => void>();
let now = Date.now();
let timer: ReturnType<typeof setInterval> | null = null;

/** Subscribes to the shared clock; the interval runs only while some <Time> is mounted. */
function subscribeClock(listener: () => void): () => void {
  listeners.add(listener);
  if (!timer) now = Date.now();
  timer ??= setInterval(() => {
    now = Date.now();
    for (const l of listeners) l();
  }, TICK_MS);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

/** The shared clock's time (milliseconds), updated every TICK_MS while anything listens: a re-render trigger. */
export const useNow = (): number => useSyncExternalStore(subscribeClock, () => now);

/** Parses an ISO timestamp (SQLite's `2026-05-01T12:00:00.000Z`, or without the zone: taken as UTC); null when invalid. */
export function parseTime(iso: string | null | undefined): Date | null {
  if (!iso) return null;
  const text = /[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : `${iso.replace(' ', 'T')}Z`;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** "just now", "12 s ago", "5 min ago", "3 h ago", "2 d ago"; times slightly ahead (clock skew) read "just now". */
export function relativeAge(date: Date, nowMs: number): string {
  const seconds = Math.round((nowMs - date.getTime()) / 1000);
  if (seconds < -5) return `in ${Math.abs(seconds) < 90 ? `${-seconds} s` : `${Math.round(-seconds / 60)} min`}`;
  if (seconds < 5) return 'just now';
  if (seconds < 90) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 36) return `${hours} h ago`;
  return `${Math.round(hours / 24)} d ago`;
}

// Built once: formatting thousands of journal rows with toLocaleTimeString would build a formatter per call.
const TIME_OF_DAY = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const HOUR_MINUTE = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

/** Local time of day for today's timestamps ("14:03:12"), else local date and time ("2026-05-01 14:03"). */
export function localTime(date: Date, nowMs: number): string {
  const today = new Date(nowMs);
  const sameDay = date.getFullYear() === today.getFullYear() && date.getMonth() === today.getMonth() && date.getDate() === today.getDate();
  if (sameDay) return TIME_OF_DAY.format(date);
  const time = HOUR_MINUTE.format(date);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${time}`;
}

/**
 * `<Time at={iso} />`: local time and relative age; `show="local"` or `show="age"` for one of them (narrow columns).
 * Renders `fallback` (muted) when `at` is absent or not a time.
 */
export function Time({ at, show = 'both', fallback = '—' }: { at: string | null | undefined; show?: 'both' | 'local' | 'age'; fallback?: string }) {
  // The shared clock triggers the re-render; the age is taken against the real time, so a row newer than the last
  // tick never reads as being in the future.
  const nowMs = Math.max(useNow(), Date.now());
  const date = parseTime(at);
  if (!date) return <span className="muted time-none">{fallback}</span>;
  const local = localTime(date, nowMs);
  const age = relativeAge(date, nowMs);
  const iso = date.toISOString();
  return (
    <time className="time" dateTime={iso} title={iso}>
      {show === 'age' ? (
        age
      ) : show === 'local' ? (
        local
      ) : (
        <>
          {local} <span className="muted">· {age}</span>
        </>
      )}
    </time>
  );
}
