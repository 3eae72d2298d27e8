/** The transport of this page: the preload bridge when Electron put one there, else the web console's client. */
import { bridgeTransport } from './bridge';
import { takeConsoleToken } from './console-token';
import type { Transport } from './types';
import { createWebTransport } from './web';

export type { Transport } from './types';

let current: Transport | undefined;

export function transport(): Transport {
  current ??= window.missive ? bridgeTransport(window.missive) : createWebTransport({ token: takeConsoleToken() });
  return current;
}
