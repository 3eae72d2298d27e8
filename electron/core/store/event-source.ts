/**
 * Who journal rows are written for: `cli` unless a caller runs its work inside `withEventSource` (the IPC registry
 * runs each call as `gui`), so every event a GUI action writes — deep inside any service — says so. Rows that name
 * their own source (`webhook`, `gateway`) keep it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<string>();

/** Runs `fn` (and everything it awaits) with `source` as the default source of the events it journals. */
export const withEventSource = <T>(source: string, fn: () => T): T => current.run(source, fn);

/** The source events written now default to: the innermost `withEventSource`, else `cli`. */
export const currentEventSource = (): string => current.getStore() ?? 'cli';

/** Runs `fn` outside any `withEventSource`: a listener it starts (the webhook receiver) journals as itself, not as the call that started it. */
export const withoutEventSource = <T>(fn: () => T): T => current.exit(fn);
