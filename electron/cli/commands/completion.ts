/** `missive completion <shell>` and `missive manpage`: shell completion scripts and missive(1), generated from the whole command tree. */
import { Argument, type Command } from 'commander';
import { VERSION } from '../../core/version.js';
import type { Action } from '../command-context.js';
import { commandTree } from '../command-tree.js';
import { completionScript, SHELLS, type Shell } from '../completion.js';
import { manpage } from '../manpage.js';

/**
 * Registers both commands on `program`. They read the tree of `program` when they run: command-modules.ts loads
 * every command module for them (`loadsAll`), so the tree is the one `missive --help` shows.
 */
export function registerCompletionCommands(program: Command, action: Action): void {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh, fish, powershell), generated from the command tree')
    .addArgument(new Argument('<shell>', 'the shell to complete for').choices([...SHELLS]))
    .addHelpText(
      'after',
      '\nLoad it: bash: source <(missive completion bash); zsh: source <(missive completion zsh);\nfish: missive completion fish | source; PowerShell: missive completion powershell | Out-String | Invoke-Expression',
    )
    .action(
      action.withoutCore(({ out }, shell: Shell) => {
        const script = completionScript(shell, commandTree(program));
        out.result('completion', { shell, script }, () => script);
      }),
    );

  program
    .command('manpage')
    .description('print the manual page missive(1) in roff, generated from the command tree')
    .addHelpText('after', '\nRead it: missive manpage | man -l -   or install it: missive manpage > ~/.local/share/man/man1/missive.1')
    .action(
      action.withoutCore(({ out }) => {
        const page = manpage(commandTree(program), VERSION);
        out.result('manpage', { format: 'roff', page }, () => page);
      }),
    );
}
