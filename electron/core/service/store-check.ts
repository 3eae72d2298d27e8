/**
 * `doctor`'s `service.store` check: which store the installed gateway service of this profile uses (read from its
 * unit or plist, see unit-store.ts), and whether it is this shell's. A warning when it is not: the service then runs
 * jobs nobody here queued, or none of the team's.
 */
import { homedir } from 'node:os';
import type { Core } from '../handle.js';
import { serviceLocation } from './spec.js';
import { installedStore, storeText, storeView, type InstalledStore, type StoreView } from './unit-store.js';

export interface ServiceStoreCheck {
  name: 'service.store';
  status: 'ok' | 'warn' | 'skip';
  message: string;
  details?: { path: string; scope: string; store: InstalledStore };
}

export interface ServiceCheckOptions {
  /** `process.platform` unless given (tests). */
  platform?: string;
  /** A directory that stands for `/` (tests). */
  root?: string;
}

export function serviceStoreCheck(core: Core, options: ServiceCheckOptions = {}): ServiceStoreCheck {
  const platform = options.platform ?? process.platform;
  if (platform !== 'linux' && platform !== 'darwin')
    return { name: 'service.store', status: 'skip', message: `no service manager missive installs to on ${platform}` };
  const home = core.env.HOME || homedir();
  const shell = storeView(core.storeSelection, core.paths.database);
  for (const system of [false, true]) {
    const where = serviceLocation({ platform, system, profile: core.config.profile, env: core.env, home, root: options.root });
    const store = installedStore(where.path, where.platform, home, shell);
    if (!store) continue;
    const details = { path: where.path, scope: where.scope, store };
    if (store.error || !store.kind)
      return { name: 'service.store', status: 'warn', message: `${where.name} (${where.scope}): its store cannot be told: ${store.error}`, details };
    const uses = `${where.name} (${where.scope}) uses ${storeText(store as StoreView)}`;
    if (store.same_as_shell) return { name: 'service.store', status: 'ok', message: `${uses}, as this shell does`, details };
    return {
      name: 'service.store',
      status: 'warn',
      message: `${uses}, not this shell's ${storeText(shell)}: reinstall it from the shell whose store it should use (\`missive gateway install\`)`,
      details,
    };
  }
  return { name: 'service.store', status: 'skip', message: 'no gateway service installed for this profile' };
}
