/**
 * The launch handshake with `missive ui`: it starts the app with a pipe on an extra file descriptor named by
 * MISSIVE_UI_CONTROL_FD, and main writes exactly one JSON line on it, `{"ready":true,"pid":…}` once the window is
 * shown (or the tray is up), or `{"error":{code,message,help}}` before exiting on a startup failure, then closes it.
 * Started any other way (a desktop launcher, `electron .`), there is no such descriptor and nothing is written.
 * Plain Node: no Electron import.
 */
import { closeSync, writeSync } from 'node:fs';

export type ControlMessage =
  | { ready: true; pid: number; tray: boolean; existing?: false }
  /** A second launch handed over to the running instance (which shows its window) and quits. */
  | { ready: true; pid: number; existing: true }
  | { error: { code: string; message: string; help?: string } };

export interface ControlChannel {
  /** Writes the one message (later ones are ignored) and closes the descriptor. Never throws. */
  send(message: ControlMessage): void;
}

export function openControlChannel(env: NodeJS.ProcessEnv): ControlChannel {
  const raw = env.MISSIVE_UI_CONTROL_FD;
  // Read once: nothing this process starts must take the descriptor for its own.
  delete env.MISSIVE_UI_CONTROL_FD;
  let fd = raw && /^\d+$/.test(raw) && Number(raw) > 2 ? Number(raw) : undefined;
  return {
    send(message) {
      if (fd === undefined) return;
      const target = fd;
      fd = undefined;
      try {
        writeSync(target, `${JSON.stringify(message)}\n`);
      } catch {
        // `missive ui` gave up waiting (or was killed): the app goes on without it.
      }
      try {
        closeSync(target);
      } catch {
        /* already closed */
      }
    },
  };
}
