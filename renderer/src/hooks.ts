import { useCallback, useEffect, useState } from 'react';
import { BridgeError } from './api';
import type { IpcError } from '../../shared/ipc/contract';

/** Runs an async action, keeping its result, its error report and whether it is running. */
export function useAction<A extends unknown[], T>(fn: (...args: A) => Promise<T>) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<IpcError | null>(null);
  const [busy, setBusy] = useState(false);
  const run = useCallback(
    async (...args: A) => {
      setBusy(true);
      setError(null);
      try {
        const value = await fn(...args);
        setData(value);
        return value;
      } catch (e) {
        setError(e instanceof BridgeError ? e.report : { code: 'missive::internal::unexpected', category: 'internal', message: String(e), exit_code: 70 });
        return null;
      } finally {
        setBusy(false);
      }
    },
    [fn],
  );
  return { data, error, busy, run, setData };
}

/** Loads once on mount (and when `deps` change). */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[]) {
  const action = useAction(fn);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useEffect(() => void action.run(), deps);
  return action;
}
