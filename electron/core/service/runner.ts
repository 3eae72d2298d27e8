/** Runs a service-manager command (systemctl, launchctl) and reports its exit code and output; tests inject a fake. */
import { execFile } from 'node:child_process';
import { MissiveError } from '../../../shared/errors.js';

export interface CommandAnswer {
  exit_code: number;
  stdout: string;
  stderr: string;
}

export type CommandRunner = (argv: readonly string[]) => Promise<CommandAnswer>;

/** The real runner: execFile without a shell, 30 s bound; a missing program is an io error (exit 69). */
export const execRunner: CommandRunner = (argv) =>
  new Promise((resolvePromise, reject) => {
    execFile(argv[0]!, argv.slice(1), { timeout: 30_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = (error as NodeJS.ErrnoException | null)?.code;
      if (code === 'ENOENT') {
        reject(
          new MissiveError('io', 'service_manager_missing', `${argv[0]} is not installed or not on PATH`, {
            exitCode: 69,
            help: 'gateway install needs systemd (Linux) or launchd (macOS); run `missive gateway run` under your own supervisor otherwise.',
          }),
        );
        return;
      }
      resolvePromise({ exit_code: error ? (typeof code === 'number' ? code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
