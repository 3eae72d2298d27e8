/**
 * The composition root of the pure core: config, state paths, the store, the secret store and the per-invocation
 * request options. The CLI and the Electron main process both build one of these and call the same services. The
 * `Core` type it returns lives in handle.ts, which every service imports instead of this file.
 */
import { statSync } from 'node:fs';
import type { Dispatcher } from 'undici';
import { loadConfig } from './config/load.js';
import { statePaths } from './config/paths.js';
import { resolveServiceParameters } from './a2a/service-params.js';
import { createKeytarStore } from './auth/secret-store.js';
import type { SecretStore } from './security/secret-store-port.js';
import type { Core, InvocationOptions } from './handle.js';
import type { Storage } from './store/storage.js';
import { openStorage } from './store/open.js';
import { isSharedStore, selectStore, STORE_URL_ENV, type StoreSelection } from './store/selection.js';
import { urlHasPassword, storeUrlSecrets } from './config/store-url.js';
import { syncConfigSeeds } from './agents/seed.js';

export interface CoreOptions extends InvocationOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  secrets?: SecretStore;
  dispatcher?: Dispatcher;
  /** Where warnings go (the CLI prints them on stderr); each distinct warning is reported once per core. */
  onWarning?: (message: string) => void;
  /** better-sqlite3's native addon for this runtime (the desktop app's Electron build; store/native-binding.ts). */
  nativeBinding?: string;
  /** `--store URL`: the PostgreSQL store, over MISSIVE_STORE_URL and `[store] url` (store/selection.ts). */
  storeUrl?: string;
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
  const storeSelection = selectStore({ flag: options.storeUrl, env, config, profile: config.profile });
  let storage: Promise<Storage> | undefined;
  const warned = new Set<string>();
  const warningListeners = new Set<(message: string) => void>();
  const seenSecrets = new Set<string>();
  const core: Core = {
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
    storeSelection,
    storage() {
      // A store that could not be opened (a PostgreSQL server down for a moment) is tried again at the next call: a
      // long-running core (the desktop app, the web console) is not left failing until it restarts.
      const opening = (storage ??= openCoreStorage(this, storeSelection, options.nativeBinding).catch((error: unknown) => {
        if (storage === opening) storage = undefined;
        throw error;
      }));
      return opening;
    },
    close() {
      // SQLite's file closes at once (its storage is settled); a pool closes its connections in the background, and the
      // process may exit meanwhile.
      void storage?.then((s) => s.close()).catch(() => undefined);
      storage = undefined;
    },
  };
  for (const key of config.ignoredKeys)
    core.warn(
      `${config.source.path ?? 'the config'}: ${key} is read by nothing (the gateway listens on no port; push callbacks go to \`missive webhook run\`): remove it`,
    );
  if (isSharedStore(storeSelection)) {
    // The store's password is a secret of this invocation from the start, like an auth ref's: outputs, the journal
    // and stored messages scrub it (a password_ref's is added when the pool resolves it: store/postgres/connect.ts).
    core.rememberSecrets(storePasswords(storeSelection, env));
    if (storeSelection.from === '--store' && urlHasPassword(storeSelection.url)) {
      core.warn(
        `the password in --store's URL can be read by every local user (ps, /proc) while missive runs: give the URL in ${STORE_URL_ENV} instead, or leave the password out of it and set [store] password_env (or password_ref)`,
      );
    }
  }
  return core;
}

/** The store passwords known without connecting: the URLs' (--store's, or MISSIVE_STORE_URL's), password_env's, PGPASSWORD. */
function storePasswords(selection: StoreSelection & { kind: 'postgres' }, env: NodeJS.ProcessEnv): string[] {
  const out = [...storeUrlSecrets(selection.url), ...storeUrlSecrets(env[STORE_URL_ENV])];
  if (selection.passwordEnv && env[selection.passwordEnv]) out.push(env[selection.passwordEnv]!);
  if (env.PGPASSWORD) out.push(env.PGPASSWORD);
  return out;
}

/** A store file from this size on takes seconds to upgrade (about 15 s per 2.3 GB, docs/performance.md). */
const UPGRADE_NOTICE_BYTES = 32 * 2 ** 20;

const storeSize = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** The store `selection` names, opened for `core`: the SQLite file with the config's seeds synced in, or the shared pool. */
async function openCoreStorage(core: Core, selection: StoreSelection, nativeBinding: string | undefined): Promise<Storage> {
  let noticeUpgrade: boolean | undefined;
  const storage = await openStorage(selection, {
    sqlite: {
      path: core.paths.database,
      stateDir: core.paths.state,
      nativeBinding,
      // A long upgrade (the journal of a store past UPGRADE_NOTICE_BYTES rebuilt) says where it is, on stderr and in
      // the window's notices; a small store's takes a moment and says nothing.
      onMigration: (p) => {
        // Sized once, at the upgrade's first step (the file does not change under the migration's transaction).
        noticeUpgrade ??= storeSize(core.paths.database) >= UPGRADE_NOTICE_BYTES;
        if (noticeUpgrade) core.warn(`upgrading the store to schema v${p.version} (${p.name}), step ${p.step} of ${p.steps}: ${p.label}`);
      },
    },
    postgres: {
      env: core.env,
      secrets: core.secrets,
      config: core.config,
      // The password (from the URL, an env var or a keyring ref) is scrubbed from every output, the window's too.
      remember: (values) => core.rememberSecrets(values),
      onError: (message) => core.warn(message),
      // A ~/.pgpass others can read (ignored, as libpq does), a service key missive does not use: said once.
      warn: (message) => core.warn(message),
    },
  });
  if (!isSharedStore(selection)) {
    try {
      await syncConfigSeeds(storage, core.config);
    } catch (error) {
      await storage.close();
      throw error;
    }
    return storage;
  }
  // The config is one user's: its agents and auth refs are not written into the store everyone shares (the auth ref
  // that holds the store's own password is simply that, and says nothing worth a warning).
  const seeds = [...Object.keys(core.config.agents), ...Object.keys(core.config.authRefs).filter((name) => name !== selection.passwordRef)];
  if (seeds.length > 0) {
    core.warn(
      `the config's [agents] and [auth_refs] (${seeds.join(', ')}) seed the local SQLite store only, not the shared PostgreSQL store (${selection.display}): register shared ones with missive agent add / missive auth add`,
    );
  }
  return storage;
}
