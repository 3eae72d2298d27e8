/**
 * What `missive gateway install` would write and run: the service file's location and contents, the program and
 * environment it starts, and the service-manager commands of each action. Pure: every input (platform, paths, uid)
 * is passed in, so a test renders the same files on any machine.
 */
import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { usageError } from '../../../shared/errors.js';
import type { StatePaths } from '../config/paths.js';
import { renderLaunchdPlist } from './launchd-plist.js';
import { renderSystemdUnit } from './systemd-unit.js';
import type { ServicePlatform, ServiceScope, ServiceSpec } from './types.js';

export type { ServiceCredential, ServicePlatform, ServiceScope, ServiceSpec } from './types.js';

export interface SpecInput {
  platform: string;
  system?: boolean;
  profile: string;
  /** The current process environment and directory: where the state lives now. */
  env: NodeJS.ProcessEnv;
  cwd: string;
  paths: StatePaths;
  /** The config file in use, when it was named by --config / MISSIVE_CONFIG or found outside MISSIVE_HOME. */
  configPath?: string;
  configKind?: string;
  nodePath: string;
  binPath: string;
  extraEnv: Array<[string, string]>;
  home: string;
  uid: number;
  user?: string;
  /** A directory that stands for `/` (tests). */
  root?: string;
}

export function servicePlatform(platform: string): ServicePlatform {
  if (platform === 'linux' || platform === 'darwin') return platform;
  throw usageError(
    'service_unsupported_platform',
    `gateway install supports systemd (linux) and launchd (darwin), not ${platform}`,
    'Run `missive gateway run` under your own supervisor.',
  );
}

/** The environment that makes the service see this invocation's state and config, with absolute paths only. */
function stateEnv(input: SpecInput): Array<[string, string]> {
  const env: Array<[string, string]> = [];
  if (input.env.MISSIVE_HOME) {
    if (!isAbsolute(input.env.MISSIVE_HOME)) {
      throw usageError(
        'relative_missive_home',
        `MISSIVE_HOME=${input.env.MISSIVE_HOME} is relative; a service has no working directory to resolve it against`,
        `Use an absolute path, e.g. MISSIVE_HOME=${resolve(input.cwd, input.env.MISSIVE_HOME)}.`,
      );
    }
    env.push(['MISSIVE_HOME', input.env.MISSIVE_HOME]);
  } else {
    for (const name of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME']) {
      const value = input.env[name];
      if (value && isAbsolute(value)) env.push([name, value]);
    }
  }
  if (input.configPath && input.configKind !== 'home') env.push(['MISSIVE_CONFIG', input.configPath]);
  return env;
}

/** The program the service runs: node + a JS bin (symlinks resolved), or the bin itself when it is not JS. */
export function programArgv(nodePath: string, binPath: string, cwd: string, profile: string): string[] {
  const bin = resolve(cwd, binPath);
  if (!existsSync(bin)) throw usageError('bin_not_found', `--bin ${bin} does not exist`);
  const real = realpathSync(bin);
  const head = /\.[cm]?js$/.test(real) ? [nodePath, real] : [real];
  return [...head, 'gateway', 'run', '--profile', profile];
}

/** Where the service of a profile lives: its platform, scope, systemd unit name or launchd label, and file. */
export function serviceLocation(
  input: Pick<SpecInput, 'platform' | 'system' | 'profile' | 'env' | 'home' | 'root'>,
): Pick<ServiceSpec, 'platform' | 'scope' | 'name' | 'label' | 'path'> {
  const platform = servicePlatform(input.platform);
  const scope: ServiceScope = input.system ? 'system' : 'user';
  if (!/^[A-Za-z0-9._-]+$/.test(input.profile)) throw usageError('invalid_profile', `profile ${input.profile} cannot name a service`);
  const suffix = input.profile === 'default' ? '' : `-${input.profile}`;
  const name = `missive-gateway${suffix}.service`;
  const label = `dev.missive.gateway${input.profile === 'default' ? '' : `.${input.profile}`}`;
  const at = (path: string) => (input.root ? join(input.root, path) : path);
  let path: string;
  if (platform === 'linux')
    path =
      scope === 'system'
        ? at(`/etc/systemd/system/${name}`)
        : join(
            input.env.XDG_CONFIG_HOME && isAbsolute(input.env.XDG_CONFIG_HOME) ? input.env.XDG_CONFIG_HOME : join(input.home, '.config'),
            'systemd',
            'user',
            name,
          );
  else path = scope === 'system' ? at(`/Library/LaunchDaemons/${label}.plist`) : join(input.home, 'Library', 'LaunchAgents', `${label}.plist`);
  return { platform, scope, name: platform === 'linux' ? name : label, label, path };
}

export function serviceSpec(input: SpecInput): ServiceSpec {
  return {
    ...serviceLocation(input),
    profile: input.profile,
    argv: programArgv(input.nodePath, input.binPath, input.cwd, input.profile),
    env: [...stateEnv(input), ...input.extraEnv],
    user: input.user,
    logFile: join(input.paths.logs, 'gateway-service.log'),
    uid: input.uid,
  };
}

export const renderService = (spec: ServiceSpec): string => (spec.platform === 'linux' ? renderSystemdUnit(spec) : renderLaunchdPlist(spec));

export type ServiceAction = 'install' | 'reinstall' | 'start' | 'stop' | 'status' | 'uninstall';

/** The service-manager commands of one action, in order. */
export function serviceCommands(spec: ServiceSpec, action: ServiceAction): string[][] {
  if (spec.platform === 'linux') {
    const ctl = spec.scope === 'user' ? ['systemctl', '--user'] : ['systemctl'];
    switch (action) {
      case 'install':
        return [
          [...ctl, 'daemon-reload'],
          [...ctl, 'enable', '--now', spec.name],
        ];
      case 'reinstall':
        return [
          [...ctl, 'daemon-reload'],
          [...ctl, 'enable', spec.name],
          [...ctl, 'restart', spec.name],
        ];
      case 'start':
        return [[...ctl, 'start', spec.name]];
      case 'stop':
        return [[...ctl, 'stop', spec.name]];
      case 'status':
        return [[...ctl, 'show', spec.name, '--no-pager', '--property=LoadState,ActiveState,SubState,MainPID,NRestarts,ExecMainStatus']];
      case 'uninstall':
        return [
          [...ctl, 'disable', '--now', spec.name],
          [...ctl, 'daemon-reload'],
        ];
    }
  }
  const domain = spec.scope === 'user' ? `gui/${spec.uid}` : 'system';
  const target = `${domain}/${spec.label}`;
  switch (action) {
    case 'install':
      return [['launchctl', 'bootstrap', domain, spec.path]];
    case 'reinstall':
      return [
        ['launchctl', 'bootout', target],
        ['launchctl', 'bootstrap', domain, spec.path],
      ];
    case 'start':
      return [['launchctl', 'kickstart', target]];
    case 'stop':
      return [['launchctl', 'kill', 'SIGTERM', target]];
    case 'status':
      return [['launchctl', 'print', target]];
    case 'uninstall':
      return [['launchctl', 'bootout', target]];
  }
}
