/**
 * Installs, controls and removes the gateway's service: writes or deletes the file of a `ServiceSpec` and runs the
 * service-manager commands through an injected `CommandRunner` (never a shell). `dryRun` writes and runs nothing
 * and returns the plan.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { MissiveError } from '../../../shared/errors.js';
import { redactText } from '../security/redact.js';
import type { CommandAnswer, CommandRunner } from './runner.js';
import { renderService, serviceCommands, type ServiceAction, type ServiceSpec } from './spec.js';

export interface CommandRecord extends Partial<CommandAnswer> {
  argv: string[];
}

export interface ServiceReport {
  platform: string;
  scope: string;
  name: string;
  path: string;
  installed: boolean;
  dry_run: boolean;
  contents?: string;
  commands: CommandRecord[];
}

const base = (spec: ServiceSpec, dryRun: boolean) => ({ platform: spec.platform, scope: spec.scope, name: spec.name, path: spec.path, dry_run: dryRun });

/** Runs commands in order; stops at the first failure unless `tolerate` (a bootout of a service not loaded). */
async function runAll(runner: CommandRunner, commands: string[][], tolerate: (argv: string[]) => boolean = () => false): Promise<CommandRecord[]> {
  const records: CommandRecord[] = [];
  for (const argv of commands) {
    const answer = await runner(argv);
    const record = { argv, exit_code: answer.exit_code, stdout: redactText(answer.stdout), stderr: redactText(answer.stderr) };
    records.push(record);
    if (answer.exit_code !== 0 && !tolerate(argv)) {
      throw new MissiveError(
        'io',
        'service_command_failed',
        `\`${argv.join(' ')}\` exited ${answer.exit_code}: ${record.stderr.trim() || record.stdout.trim() || 'no output'}`,
        {
          exitCode: 69,
          help:
            argv[0] === 'systemctl' && argv[1] === '--user'
              ? 'A user unit needs a user session bus (log in, or `loginctl enable-linger $USER`).'
              : "Run the command yourself to see the service manager's answer.",
        },
      );
    }
  }
  return records;
}

const writeAtomically = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode: 0o644 });
  renameSync(temp, path);
};

export async function installService(spec: ServiceSpec, o: { dryRun?: boolean; runner: CommandRunner }): Promise<ServiceReport> {
  const contents = renderService(spec);
  const existed = existsSync(spec.path);
  const planned = serviceCommands(spec, existed ? 'reinstall' : 'install');
  if (o.dryRun) return { ...base(spec, true), installed: existed, contents, commands: planned.map((argv) => ({ argv })) };
  writeAtomically(spec.path, contents);
  const commands = await runAll(o.runner, planned, (argv) => argv[1] === 'bootout');
  return { ...base(spec, false), installed: true, contents, commands };
}

export async function uninstallService(spec: ServiceSpec, o: { dryRun?: boolean; runner: CommandRunner }): Promise<ServiceReport> {
  const installed = existsSync(spec.path);
  if (!installed)
    throw new MissiveError('validation', 'service_not_installed', `no service file at ${spec.path}`, {
      help: 'Nothing to uninstall; `missive gateway status` shows where it looks.',
    });
  const planned = serviceCommands(spec, 'uninstall');
  if (o.dryRun) return { ...base(spec, true), installed, commands: planned.map((argv) => ({ argv })) };
  // Stopping may fail when the service is already stopped or not loaded: the file goes anyway.
  const [first, ...rest] = planned;
  const commands = await runAll(o.runner, [first!], () => true);
  rmSync(spec.path, { force: true });
  commands.push(...(await runAll(o.runner, rest)));
  return { ...base(spec, false), installed: false, commands };
}

/** start / stop: refuses when nothing is installed. */
export async function controlService(
  spec: ServiceSpec,
  action: Extract<ServiceAction, 'start' | 'stop'>,
  o: { runner: CommandRunner },
): Promise<ServiceReport> {
  if (!existsSync(spec.path))
    throw new MissiveError('validation', 'service_not_installed', `no service file at ${spec.path}`, {
      help: 'Install it first: `missive gateway install` (`--dry-run` shows what it writes).',
    });
  return { ...base(spec, false), installed: true, commands: await runAll(o.runner, serviceCommands(spec, action)) };
}

/** Whether the file is installed and, when it is, the service manager's answer (a non-zero answer is reported, not thrown). */
export async function serviceStatus(spec: ServiceSpec, o: { runner: CommandRunner }): Promise<ServiceReport & { state?: Record<string, string> }> {
  if (!existsSync(spec.path)) return { ...base(spec, false), installed: false, commands: [] };
  const commands = await runAll(o.runner, serviceCommands(spec, 'status'), () => true);
  const answer = commands[0]!;
  const state =
    spec.platform === 'linux'
      ? Object.fromEntries(
          (answer.stdout ?? '')
            .split('\n')
            .filter((l) => l.includes('='))
            .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1).trim()]),
        )
      : {
          loaded: answer.exit_code === 0 ? 'yes' : 'no',
          ...(/^\s*state = (.+)$/m.exec(answer.stdout ?? '') ? { state: /^\s*state = (.+)$/m.exec(answer.stdout ?? '')![1]!.trim() } : {}),
        };
  return { ...base(spec, false), installed: true, commands, state };
}
