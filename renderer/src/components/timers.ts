/** Timer hooks of the views: polling while a view is shown, reloading when it is shown again, and debounced values. */
import { useEffect, useRef, useState } from 'react';

/** Calls `fn` every `intervalMs` while `active` (and once when it becomes active); the latest `fn` is called. */
export function useInterval(active: boolean, intervalMs: number, fn: () => void): void {
  const latest = useRef(fn);
  latest.current = fn;
  useEffect(() => {
    if (!active) return;
    latest.current();
    const timer = setInterval(() => latest.current(), intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs]);
}

/** `value`, once it has stopped changing for `ms` (search boxes query when the typing pauses). */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** Calls `fn` each time `active` turns true again after being false (a hidden view shown again reloads). */
export function useOnShownAgain(active: boolean, fn: () => void): void {
  const latest = useRef(fn);
  latest.current = fn;
  const was = useRef(active);
  useEffect(() => {
    if (active && !was.current) latest.current();
    was.current = active;
  }, [active]);
}
