/**
 * `missive __complete <kind> [-- words…]`, hidden: what the completion scripts call for agent aliases, groups,
 * contexts and task ids, one a line. The words typed so far follow `--`, so their `--profile` and `--config` choose
 * the store. It never fails loudly: a broken config or no database prints nothing, exit 0.
 */
import type { Command } from 'commander';
import { completionValues } from '../../core/doctor/completion-values.js';
import type { Action } from '../command-context.js';

/** The value of `--profile` / `--config` among the words (`--profile work`, `--profile=work`, bash's `--profile = work`). */
export function flagValue(words: readonly string[], flag: string): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--') break;
    if (word.startsWith(`${flag}=`)) found = word.slice(flag.length + 1);
    else if (word === flag) {
      const next = words[i + 1] === '=' ? i + 2 : i + 1;
      if (next < words.length) found = words[next];
      i = next;
    }
  }
  return found || undefined;
}

export function registerValueCompletion(program: Command, action: Action): void {
  program
    .command('__complete <kind> [words...]', { hidden: true })
    .description('values for shell completion from the store (agents, groups, contexts, tasks); used by the completion scripts')
    .action(
      action.withoutCore(({ flags, deps }, kind: string, words: string[] = []) => {
        const values = completionValues({
          kind,
          env: deps.env,
          cwd: deps.cwd,
          configFlag: flagValue(words, '--config') ?? flags.config,
          profileFlag: flagValue(words, '--profile') ?? flags.profile,
        });
        if (values.length) deps.io.stdout(`${values.join('\n')}\n`);
      }),
    );
}
