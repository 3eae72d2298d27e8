/** What every A2A call carries, whichever binding and dialect speaks it. */
import type { Dispatcher } from 'undici';
import type { SelectedInterface } from './interfaces.js';
import type { WireCapture } from './wire.js';

export const A2A_JSON = 'application/a2a+json';

export interface BindingCall {
  iface: SelectedInterface;
  /** Service parameters (A2A-Version, extensions, extras) and, unless withheld, the agent's credentials. */
  headers: Record<string, string>;
  timeoutMs: number;
  /** The A2A version this call speaks (the dialect's, unless --protocol-version says otherwise). */
  protocolVersion: string;
  dispatcher?: Dispatcher;
  secrets?: readonly string[];
  maxResponseBytes?: number;
  /** The agent's alias, for messages that suggest a next command. */
  alias?: string;
  /** Records every exchange of the call for the wire view (`--show-wire`, the GUI); absent, nothing is recorded. */
  wire?: WireCapture;
}
