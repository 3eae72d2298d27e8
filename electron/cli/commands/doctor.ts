/**
 * `missive doctor`: diagnostics without mutation; exits with the code of the first failing check. A config that does
 * not load is reported as the failing `config.discovery_validation` check (with its file and line), not an abort.
 */
import type { Command } from 'commander';
import { isMissiveError } from '../../../shared/errors.js';
import { runDoctor, runDoctorWithoutConfig, type DoctorCheck, type DoctorReport } from '../../core/doctor/doctor.js';
import { createCore } from '../../core/context.js';
import type { Core } from '../../core/handle.js';
import { createKeytarStore } from '../../core/auth/secret-store.js';
import type { Action } from '../command-context.js';
import { coreOptions, knownSecrets } from '../core-options.js';
import { Printer, resolveMode, type OutputMode } from '../output.js';

const ICON: Record<DoctorCheck['status'], string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip' };

const human = (d: DoctorReport) => d.checks.map((c) => `${ICON[c.status]}  ${c.name}: ${c.message}`).join('\n');

export function registerDoctorCommand(program: Command, action: Action): void {
  program
    .command('doctor')
    .description('check config, state, schema, keyring and agent reachability (changes nothing)')
    .action(
      action.withoutCore(async ({ out, flags, deps }) => {
        let core: Core;
        try {
          core = createCore(coreOptions(flags, deps, (message) => out.warning(message)));
        } catch (error) {
          if (!isMissiveError(error) || error.category !== 'config') throw error;
          const report = await runDoctorWithoutConfig({
            error,
            env: deps.env,
            cwd: deps.cwd,
            configFlag: flags.config,
            profileFlag: flags.profile,
            storeFlag: flags.store,
            secrets: deps.secrets ?? createKeytarStore(),
          });
          out.result('doctor', report, human);
          return report.exit_code;
        }
        try {
          const printer = new Printer(resolveMode(flags, core.config.output.format as OutputMode | undefined), deps.io, () => knownSecrets(core, flags));
          const report = await runDoctor(core, { service: { root: deps.service?.root } });
          printer.result('doctor', report, human);
          return report.exit_code;
        } finally {
          core.close();
        }
      }),
    );
}
