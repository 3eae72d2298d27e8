/** Where a profile keeps its state: `MISSIVE_HOME` overrides everything, XDG base directories otherwise. */
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { xdgCache, xdgData, xdgState } from 'xdg-basedir';

export interface StatePaths {
  root: 'MISSIVE_HOME' | 'XDG';
  data: string;
  state: string;
  cache: string;
  locks: string;
  logs: string;
  database: string;
}

export function statePaths(profile: string, env: NodeJS.ProcessEnv, cwd: string, databasePath?: string): StatePaths {
  let data: string, state: string, cache: string, root: StatePaths['root'];
  if (env.MISSIVE_HOME) {
    const home = resolve(cwd, env.MISSIVE_HOME);
    root = 'MISSIVE_HOME';
    data = join(home, 'data', 'profiles', profile);
    state = join(home, 'state', 'profiles', profile);
    cache = join(home, 'cache', 'profiles', profile);
  } else {
    const home = env.HOME || homedir();
    root = 'XDG';
    data = join(env.XDG_DATA_HOME || xdgData || join(home, '.local', 'share'), 'missive', 'profiles', profile);
    state = join(env.XDG_STATE_HOME || xdgState || join(home, '.local', 'state'), 'missive', 'profiles', profile);
    cache = join(env.XDG_CACHE_HOME || xdgCache || join(home, '.cache'), 'missive', 'profiles', profile);
  }
  let database = join(state, 'missive.sqlite3');
  if (databasePath) {
    if (databasePath.startsWith('~/')) database = join(env.HOME || homedir(), databasePath.slice(2));
    else database = isAbsolute(databasePath) ? databasePath : join(state, databasePath);
  }
  return { root, data, state, cache, locks: join(state, 'locks'), logs: join(state, 'logs'), database };
}
