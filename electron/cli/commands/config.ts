/** `missive config show`: the effective configuration, redacted, each value with where it came from. */
import type { Command } from 'commander';
import { showConfig, type ConfigShow } from '../../core/doctor/config-show.js';
import type { Action } from '../command-context.js';
import { table } from '../human.js';

const cell = (value: unknown) => (value === null || value === undefined ? '-' : typeof value === 'string' ? value : JSON.stringify(value));

export function registerConfigCommands(program: Command, action: Action): void {
  const config = program.command('config').description('the configuration missive runs with (see docs/config.md)');
  config
    .command('show')
    .description(
      'the effective configuration of this invocation, redacted, each value with where it came from (flag, env var, config file:line, profile, default)',
    )
    .action(
      action(async ({ core, out, flags }) => {
        const outputFlag = flags.quiet ? '--quiet' : flags.json ? '--json' : flags.ndjson ? '--ndjson' : undefined;
        const shown = showConfig({
          config: core.config,
          paths: core.paths,
          env: core.env,
          options: core.options,
          outputFlag,
          serviceParameters: core.serviceParameters,
          timeoutMs: core.timeoutMs,
          store: core.storeSelection,
        });
        out.result('config_show', shown, (d: ConfigShow) =>
          [
            `profile ${d.profile}, config file ${d.config_file ?? '(none: built-in defaults)'}`,
            `store: ${d.store}`,
            '',
            table(
              ['KEY', 'VALUE', 'FROM'],
              d.values.map((v) => [v.key, cell(v.value), v.from]),
            ),
          ].join('\n'),
        );
      }),
    );
}
