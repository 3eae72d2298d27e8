/**
 * The reducer commands a gateway runs: only those its own config names (`[gateway.commands] NAME = "command"`), run
 * from the config file's folder. A queued reduce names one (`job start reduce --gateway-command NAME`); a command line
 * from the queue is never run (jobs/requests.ts refuses to store one, and the stored request's schema has no place
 * for it), so whoever can write the queue cannot run anything on a gateway's host.
 */
import { dirname } from 'node:path';
import { configError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';

export function gatewayCommand(core: Core, name: string): { command: string; cwd: string } {
  const command = core.config.gateway.commands[name];
  if (command === undefined) {
    const known = Object.keys(core.config.gateway.commands);
    throw configError(
      'unknown_gateway_command',
      `the job asks for reducer command "${name}", which this gateway's config does not name${known.length ? ` (it names ${known.join(', ')})` : ''}; nothing was run`,
      `The gateway's operator adds it: [gateway.commands] ${name} = "…" in ${core.config.source.path ?? 'the config file'}, then restarts the gateway.`,
    );
  }
  return { command, cwd: core.config.source.path ? dirname(core.config.source.path) : process.cwd() };
}
