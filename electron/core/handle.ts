/**
 * The `Core` handle: what a service is given (config, state paths, the store, the secret store, the invocation's
 * request options). Only types: context.ts builds one (`createCore`), and every service imports the type from here,
 * never from the file that builds it, so no import runs back up the layers.
 */
import type { Dispatcher } from 'undici';
import type { EffectiveConfig } from './config/load.js';
import type { StatePaths } from './config/paths.js';
import type { ServiceParameters } from './a2a/service-params.js';
import type { SecretStore } from './security/secret-store-port.js';
import type { Storage } from './store/storage.js';
import type { StoreSelection } from './store/selection.js';

export interface InvocationOptions {
  configPath?: string;
  profile?: string;
  timeoutMs?: number;
  protocolVersion?: string;
  extensions?: string[];
  serviceParams?: string[];
  bearerTokenEnv?: string;
  /** `Name:Value` strings; used for this invocation only, never persisted. */
  headers?: string[];
  /** Call card interfaces on another origin than the agent's, without its credentials. */
  allowCrossOriginAuth?: boolean;
  /** Refuse unsigned Agent Cards and cards whose signature does not verify (also `[protocol] require_signed_card`). */
  requireSignedCard?: boolean;
}

export interface Core {
  readonly config: EffectiveConfig;
  readonly paths: StatePaths;
  readonly env: NodeJS.ProcessEnv;
  readonly secrets: SecretStore;
  readonly options: InvocationOptions;
  readonly serviceParameters: ServiceParameters;
  readonly timeoutMs: number;
  readonly dispatcher?: Dispatcher;
  /** Which store this core uses: the profile's SQLite file (the default), or a PostgreSQL database (team mode). */
  readonly storeSelection: StoreSelection;
  /**
   * The store, whichever engine holds it: the profile's SQLite file (opened, migrated and synced with the config's
   * seeds on first use), or PostgreSQL (connected, and its schema migrated, on first use). Services never learn which.
   */
  storage(): Promise<Storage>;
  /** Reports something the user should know that does not stop the command (once per distinct message). */
  warn(message: string): void;
  /** Also sends each warning to `listener` (the IPC registry: notices in the window); returns the unsubscribe. */
  onWarning(listener: (message: string) => void): () => void;
  /**
   * The auth refs this process may read a secret for (a gateway's `[gateway] job_auth_refs`); undefined: any the
   * user bound. auth/host-trust.ts enforces it.
   */
  readonly authRefsAllowed?: ReadonlySet<string>;
  /** Notes credentials this process sent (or was given), so every output scrubs them, even when a peer echoes one. */
  rememberSecrets(values: readonly string[]): void;
  /** The credentials noted so far: what outputs (CLI, IPC replies, adapter frames) scrub besides their own lists. */
  knownSecrets(): readonly string[];
  close(): void;
}
