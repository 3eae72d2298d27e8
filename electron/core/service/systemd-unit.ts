/** Renders the systemd unit that runs `missive gateway run` for one profile (user or system scope). */
import type { ServiceSpec } from './types.js';

/** One ExecStart word: double-quoted, with systemd's specifiers (`%`) and variable expansion (`$`) escaped. */
const execWord = (word: string): string => `"${word.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$')}"`;
/** One Environment= assignment, quoted as a whole; `%` escaped (systemd expands specifiers there too). */
const envAssignment = (name: string, value: string): string => `"${`${name}=${value}`.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%')}"`;

export function renderSystemdUnit(spec: ServiceSpec): string {
  const lines = [
    '# Written by `missive gateway install`; remove it with `missive gateway uninstall`.',
    '[Unit]',
    `Description=missive gateway (profile ${spec.profile})`,
    'Wants=network-online.target',
    'After=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${spec.argv.map(execWord).join(' ')}`,
    ...spec.env.map(([k, v]) => `Environment=${envAssignment(k, v)}`),
    // The secret is copied by systemd into the service's credentials directory (%d, $CREDENTIALS_DIRECTORY), readable
    // by the service alone; the unit names the file, never its contents.
    ...(spec.credentials ?? []).flatMap((c) => [`LoadCredential=${c.id}:${c.source.replace(/%/g, '%%')}`, `Environment="${c.env}=%d/${c.id}"`]),
    ...(spec.scope === 'system' && spec.user ? [`User=${spec.user}`] : []),
    'Restart=on-failure',
    'RestartSec=5',
    'KillSignal=SIGTERM',
    'TimeoutStopSec=30',
    '',
    '[Install]',
    `WantedBy=${spec.scope === 'system' ? 'multi-user.target' : 'default.target'}`,
    '',
  ];
  return lines.join('\n');
}
