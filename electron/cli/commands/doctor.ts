/** `missive doctor`: diagnostics without mutation; exits with the code of the first failing check. */
import type { Command } from 'commander';
import { runDoctor, type DoctorCheck } from '../../core/doctor/doctor.js';
import type { Action } from '../command-context.js';

const ICON: Record<DoctorCheck['status'], string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip' };

export function registerDoctorCommand(program: Command, action: Action): void {
  program
    .command('doctor')
    .description('check config, state, schema, keyring and agent reachability (changes nothing)')
    .action(
      action(async ({ core, out }) => {
        const report = await runDoctor(core);
        out.result('doctor', report, (d) => (d.checks as DoctorCheck[]).map((c) => `${ICON[c.status]}  ${c.name}: ${c.message}`).join('\n'));
        return report.exit_code;
      }),
    );
}
