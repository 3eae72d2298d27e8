/** Finds the one config file that applies, in the documented order. */
import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { xdgConfig, xdgConfigDirectories } from 'xdg-basedir';
import { configError } from '../../../shared/errors.js';

export type ConfigSourceKind = 'flag' | 'env' | 'repo' | 'home' | 'xdg' | 'defaults';

export interface ConfigSource {
  kind: ConfigSourceKind;
  path?: string;
  /** Every location looked at, in order, for `doctor`. */
  searched: string[];
}

export interface DiscoveryInput {
  configFlag?: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

const isFile = (path: string) => existsSync(path) && statSync(path).isFile();

export function discoverConfig({ configFlag, env, cwd }: DiscoveryInput): ConfigSource {
  const searched: string[] = [];
  const explicit = (kind: 'flag' | 'env', raw: string, label: string): ConfigSource => {
    const path = isAbsolute(raw) ? raw : resolve(cwd, raw);
    searched.push(path);
    if (!isFile(path)) {
      throw configError('config_not_found', `config file ${path} (from ${label}) does not exist or is not a file`);
    }
    return { kind, path, searched };
  };
  if (configFlag) return explicit('flag', configFlag, '--config');
  if (env.MISSIVE_CONFIG) return explicit('env', env.MISSIVE_CONFIG, 'MISSIVE_CONFIG');

  if (env.MISSIVE_REPO_CONFIG === '1') {
    for (let dir = resolve(cwd); ; dir = dirname(dir)) {
      for (const name of ['missive.toml', '.missive.toml']) {
        const path = join(dir, name);
        searched.push(path);
        if (isFile(path)) return { kind: 'repo', path, searched };
      }
      if (dirname(dir) === dir) break;
    }
  }

  if (env.MISSIVE_HOME) {
    const path = join(resolve(cwd, env.MISSIVE_HOME), 'config', 'config.toml');
    searched.push(path);
    if (isFile(path)) return { kind: 'home', path, searched };
    return { kind: 'defaults', searched };
  }

  const configHome = env.XDG_CONFIG_HOME || xdgConfig;
  const candidates: string[] = [];
  if (configHome) candidates.push(join(configHome, 'missive', 'config.toml'), join(configHome, 'missive.toml'));
  const dirs = env.XDG_CONFIG_DIRS ? env.XDG_CONFIG_DIRS.split(':').filter(Boolean) : xdgConfigDirectories.slice(1);
  for (const dir of dirs) if (dir !== configHome) candidates.push(join(dir, 'missive', 'config.toml'));
  for (const path of candidates) {
    searched.push(path);
    if (isFile(path)) return { kind: 'xdg', path, searched };
  }
  return { kind: 'defaults', searched };
}
