/**
 * The renderer's async hooks. `useAction` runs an async action and keeps its result, its error report and whether it
 * is running; every run supersedes the one before it, so a slow older run can never overwrite a newer result, and
 * nothing is set after the component unmounts. `useLoad` is the same, run on mount, when its deps change and when
 * its view is shown again.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { BridgeError, call } from './api';
import { useViewActive } from './store';
import type { IpcError } from '../../shared/ipc/contract';

/** Any thrown value as the error report the views show. */
export function toReport(e: unknown): IpcError {
  return e instanceof BridgeError ? e.report : { code: 'missive::internal::unexpected', category: 'internal', message: String(e), exit_code: 70 };
}

export function useAction<A extends unknown[], T>(fn: (...args: A) => Promise<T>) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<IpcError | null>(null);
  const [busy, setBusy] = useState(false);
  /** The number of the latest run; a run whose number is no longer the latest is stale and its outcome is dropped. */
  const latest = useRef(0);
  const mounted = useRef(true);
  // The latest fn, so `run` keeps one identity while still calling what the component rendered last.
  const fnRef = useRef(fn);
  fnRef.current = fn;
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const current = (id: number) => mounted.current && latest.current === id;

  const run = useCallback(async (...args: A): Promise<T | null> => {
    const id = ++latest.current;
    setBusy(true);
    setError(null);
    try {
      const value = await fnRef.current(...args);
      if (!current(id)) return null;
      setData(value);
      return value;
    } catch (e) {
      if (current(id)) setError(toReport(e));
      return null;
    } finally {
      if (current(id)) setBusy(false);
    }
  }, []);

  /** Stops waiting for the running call: its result and error will be ignored when they arrive. */
  const cancel = useCallback(() => {
    latest.current++;
    if (mounted.current) setBusy(false);
  }, []);

  /** The latest run's number: a callback that belongs to one run (e.g. live events) compares it with its own. */
  const runId = useCallback(() => latest.current, []);

  return { data, error, busy, run, cancel, runId, setData, setError };
}

/**
 * Loads on mount, when `deps` change, and again each time its (kept-mounted) view is shown after being hidden, so a
 * view never shows data from before the user went elsewhere (`reloadWhenShown: false` for a view that stays current
 * by other means). A reload supersedes a load still in flight.
 */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[], options: { reloadWhenShown?: boolean } = {}) {
  const action = useAction(fn);
  const { run, cancel } = action;
  const active = useViewActive();
  const wasActive = useRef(active);
  const reloadWhenShown = options.reloadWhenShown ?? true;
  useEffect(() => {
    void run();
    return cancel;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the caller's deps decide when to load (useLoad's contract); run and cancel keep one identity
  }, deps);
  useEffect(() => {
    if (reloadWhenShown && active && !wasActive.current) void run();
    wasActive.current = active;
  }, [active, run, reloadWhenShown]);
  return action;
}

let sharedStoreAnswer: Promise<boolean> | undefined;

/**
 * Whether the journal is a shared PostgreSQL store (team mode), asked once per window (a window's store never
 * changes); null until known. The views offer the demo agents on a personal store only.
 */
export function useSharedStore(): boolean | null {
  const [shared, setShared] = useState<boolean | null>(null);
  useEffect(() => {
    let live = true;
    sharedStoreAnswer ??= call('app.info', {}).then((info) => info.sharedStore);
    sharedStoreAnswer.then(
      (answer) => live && setShared(answer),
      () => {
        sharedStoreAnswer = undefined;
      },
    );
    return () => {
      live = false;
    };
  }, []);
  return shared;
}
