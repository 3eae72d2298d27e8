/** `missive diff`: two gathered rounds member by member, or two members of one round (text and JSON data diffs). */
import type { Command, OptionValues } from 'commander';
import { diffOutputs } from '../../core/diff/diff.js';
import type { Action } from '../command-context.js';
import { collect } from '../options.js';
import { diffText } from '../diff-text.js';

const list = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
];

export function registerDiffCommand(program: Command, action: Action): void {
  program
    .command('diff')
    .description(
      "diff gathered outputs: each member's output in round A vs round B, or two members of one round (text lines and JSON data parts; local journal only)",
    )
    .requiredOption('--context <id>', "a round's context, id or name: twice for two rounds, once with --members", collect)
    .option('--member <alias>', 'two rounds: only this member')
    .option('--members <a,b>', 'one round: compare these two members', list)
    .option('--group <name>', "take the members from this group (default: the round's bcast/scatter in the journal)")
    .option('--exit-code', 'exit 1 when there are differences (like git diff --exit-code)')
    .action(
      action(async ({ core, out }, o: OptionValues) => {
        const result = await diffOutputs(core, { contexts: o.context ?? [], member: o.member, members: o.members, group: o.group });
        out.result('diff_result', result, diffText);
        return o.exitCode && result.counts.changed > 0 ? 1 : 0;
      }),
    );
}
