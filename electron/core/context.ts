/**
 * The composition root of the pure core: config, state paths, the store, the secret store and the per-invocation
 * request options. The CLI and the Electron main process both build one of these and call the same services.
 */
import type { Dispatcher } from 'undici';
import { loadConfig, type EffectiveConfig } from './config/load.js';
import { statePaths, type StatePaths } from './config/paths.js';
import { resolveServiceParameters, type ServiceParameters } from './a2a/service-params.js';
import { createKeytarStore, type SecretStore } from './auth/secret-store.js';
import { openStore, type Store } from './store/store.js';
import { syncConfigSeeds } from './agents/seed.js';
import { ensureStateDir } from './security/private-files.js';

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

export interface CoreOptions extends InvocationOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  secrets?: SecretStore;
  dispatcher?: Dispatcher;
  /** Where warnings go (the CLI prints them on stderr); each distinct warning is reported once per core. */
  onWarning?: (message: string) => void;
  /** better-sqlite3's native addon for this runtime (the desktop app's Electron build; store/native-binding.ts). */
  nativeBinding?: string;
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
  /** Opens (and migrates) the store on first use; config-seeded agents are synced before it is returned. */
  store(): Store;
  /** Reports something the user should know that does not stop the command (once per distinct message). */
  warn(message: string): void;
  /** Also sends each warning to `listener` (the IPC registry: notices in the window); returns the unsubscribe. */
  onWarning(listener: (message: string) => void): () => void;
  /** Notes credentials this process sent (or was given), so every output scrubs them, even when a peer echoes one. */
  rememberSecrets(values: readonly string[]): void;
  /** The credentials noted so far: what outputs (CLI, IPC replies, adapter frames) scrub besides their own lists. */
  knownSecrets(): readonly string[];
  close(): void;
}

export function createCore(options: CoreOptions = {}): Core {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const config = loadConfig({ configFlag: options.configPath, profileFlag: options.profile, env, cwd });
  const paths = statePaths(config.profile, env, cwd, config.storage.databasePath);
  const serviceParameters = resolveServiceParameters(
    { version: config.protocol.version, extensions: config.protocol.extensions, extra: config.protocol.serviceParameters },
    { protocolVersion: options.protocolVersion, extensions: options.extensions, params: options.serviceParams },
  );
  let store: Store | undefined;
  const warned = new Set<string>();
  const warningListeners = new Set<(message: string) => void>();
  const seenSecrets = new Set<string>();
  return {
    config,
    paths,
    env,
    secrets: options.secrets ?? createKeytarStore(),
    options,
    serviceParameters,
    timeoutMs: options.timeoutMs ?? config.qos.timeoutMs,
    dispatcher: options.dispatcher,
    warn(message) {
      if (warned.has(message)) return;
      warned.add(message);
      options.onWarning?.(message);
      for (const listener of warningListeners) listener(message);
    },
    onWarning(listener) {
      warningListeners.add(listener);
      return () => void warningListeners.delete(listener);
    },
    rememberSecrets(values) {
      // Short values would blank ordinary words; the redaction contract scrubs literals of 4 characters or more.
      for (const value of values) if (value.length >= 4) seenSecrets.add(value);
    },
    knownSecrets: () => [...seenSecrets],
    store() {
      if (!store) {
        ensureStateDir(paths.state);
        store = openStore(paths.database, { nativeBinding: options.nativeBinding });
        syncConfigSeeds(store, config);
      }
      return store;
    },
    close() {
      store?.close();
      store = undefined;
    },
  };
}
