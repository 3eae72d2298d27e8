/** `missive auth …`: auth refs and keyring secrets. */
import type { Command } from 'commander';
import { addAuth, deleteSecret, listAuth, removeAuth, setSecret, type AuthRefView } from '../../core/auth/service.js';
import type { Action } from '../command-context.js';
import { table } from '../human.js';
import { usageError } from '../../../shared/errors.js';

const refRow = (r: AuthRefView) => [
  r.name,
  r.kind,
  r.kind === 'env' ? `$${r.env}` : `${r.keyring_service}/${r.keyring_account}`,
  `${r.header}${r.scheme && r.scheme.toLowerCase() !== 'none' ? ` (${r.scheme})` : ''}`,
  r.present === null ? 'keyring unavailable' : r.present ? 'yes' : 'no',
];

export function registerAuthCommands(program: Command, action: Action): void {
  const auth = program.command('auth').description('auth refs: where secrets live (env var or OS keyring), never the secret itself');

  auth
    .command('list')
    .description('list auth refs and whether their secret is present')
    .action(
      action(async ({ core, out }) => {
        const data = await listAuth(core);
        out.result('auth_list', data, (d) =>
          [
            `keyring: ${d.keyring.available ? `${d.keyring.backend} available` : `unavailable (${d.keyring.reason})`}`,
            d.auth_refs.length ? table(['name', 'kind', 'location', 'header', 'present'], d.auth_refs.map(refRow)) : 'no auth refs yet: missive auth add <name> --env VAR',
          ].join('\n'),
        );
      }),
    );

  auth
    .command('add <name>')
    .description('define an auth ref reading an env var or a keyring entry')
    .option('--env <var>', 'environment variable holding the token')
    .option('--keyring-service <service>', 'OS keyring service')
    .option('--keyring-account <account>', 'OS keyring account')
    .option('--header-name <name>', 'header to send (default Authorization)')
    .option('--scheme <scheme>', 'scheme before the token (default Bearer; "none" for a bare value)')
    .action(
      action(async ({ core, out }, name: string, o: Record<string, string | undefined>) => {
        const ref = await addAuth(core, { name, env: o.env, keyringService: o.keyringService, keyringAccount: o.keyringAccount, header: o.headerName, scheme: o.scheme });
        out.result('auth_add', { auth_ref: ref }, () => `added auth ref ${name}`);
      }),
    );

  auth
    .command('remove <name>')
    .description('remove a local auth ref (the keyring secret stays; use delete-secret)')
    .action(action(async ({ core, out }, name: string) => out.result('auth_remove', removeAuth(core, name), () => `removed auth ref ${name}`)));

  auth
    .command('set-secret <name>')
    .description('store the secret of a keyring auth ref, read from stdin (never from arguments)')
    .action(
      action(async ({ core, out, deps }, name: string) => {
        if (!deps.stdin) throw usageError('no_stdin', 'set-secret reads the secret from stdin');
        out.result('auth_set_secret', await setSecret(core, name, await deps.stdin()), () => `stored the secret of ${name} in the keyring`);
      }),
    );

  auth
    .command('delete-secret <name>')
    .description('delete the keyring secret of an auth ref')
    .action(action(async ({ core, out }, name: string) => out.result('auth_delete_secret', await deleteSecret(core, name), (d) => (d.deleted ? `deleted the secret of ${name}` : `no secret stored for ${name}`))));
}
