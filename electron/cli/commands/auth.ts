/** `missive auth …`: auth refs, their flows and keyring secrets; `login`, `status` and `logout` for their tokens. */
import type { Command } from 'commander';
import { addAuth, bindAuth, deleteSecret, listAuth, removeAuth, setSecret, type AuthRefView } from '../../core/auth/service.js';
import { authStatus, loginAuth, logoutAuth, type AuthStatusView } from '../../core/auth/login.js';
import type { DeviceCodePrompt } from '../../core/auth/oauth2/context.js';
import type { Action } from '../command-context.js';
import { table } from '../human.js';
import { collect } from '../options.js';
import { terminalLine } from '../terminal-text.js';
import { usageError } from '../../../shared/errors.js';

/** Where the secret is read from (on a shared store: this host's binding, or why there is none to use). */
const location = (r: AuthRefView) => {
  if (r.this_host && !r.this_host.bound) return 'not bound on this host';
  const where = r.kind === 'env' ? `$${r.env}` : `${r.keyring_service}/${r.keyring_account}`;
  return r.this_host?.changes.length ? `${where} (changed on the store: bind again)` : where;
};

const refRow = (r: AuthRefView) => [
  r.name,
  r.flow.type,
  r.kind,
  location(r),
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
            d.auth_refs.length
              ? table(['name', 'flow', 'kind', 'location', 'header', 'present'], d.auth_refs.map(refRow))
              : 'no auth refs yet: missive auth add <name> --env VAR',
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
    .option('--flow <flow>', 'header (default), basic, api_key, oauth2_client_credentials or oauth2_device_code')
    .option('--username <user>', 'basic: the user name (the secret is the password)')
    .option('--in <place>', 'api_key: header (default), query or cookie')
    .option('--key-name <name>', 'api_key: the header, query parameter or cookie name, e.g. X-API-Key')
    .option('--token-url <url>', 'oauth2: the token endpoint (https, or http on loopback)')
    .option('--issuer <url>', 'oauth2: the OpenID Connect issuer, for discovery of the endpoints')
    .option('--client-id <id>', 'oauth2: the client id (the secret is the client secret)')
    .option('--scope <scope>', 'oauth2: a scope to ask for (repeatable)', collect, [])
    .option('--audience <audience>', 'oauth2 client credentials: the audience to ask for')
    .option('--device-authorization-url <url>', 'oauth2 device code: the device authorization endpoint')
    .action(
      action(async ({ core, out }, name: string, o: Record<string, string | undefined> & { scope: string[] }) => {
        const ref = await addAuth(core, {
          name,
          env: o.env,
          keyringService: o.keyringService,
          keyringAccount: o.keyringAccount,
          header: o.headerName,
          scheme: o.scheme,
          flow: o.flow,
          username: o.username,
          in: o.in,
          keyName: o.keyName,
          tokenUrl: o.tokenUrl,
          issuer: o.issuer,
          clientId: o.clientId,
          scopes: o.scope,
          audience: o.audience,
          deviceAuthorizationUrl: o.deviceAuthorizationUrl,
        });
        out.result('auth_add', { auth_ref: ref }, () => `added auth ref ${name}`);
      }),
    );

  auth
    .command('bind <name>')
    .description("shared store: on this host, read the auth ref's secret from this env var or keyring entry (the store's row never decides)")
    .option('--env <var>', 'environment variable holding the secret on this host')
    .option('--keyring-service <service>', 'OS keyring service of the entry holding it')
    .option('--keyring-account <account>', 'OS keyring account of the entry holding it')
    .action(
      action(async ({ core, out }, name: string, o: { env?: string; keyringService?: string; keyringAccount?: string }) => {
        const ref = await bindAuth(core, name, { env: o.env, keyringService: o.keyringService, keyringAccount: o.keyringAccount });
        out.result(
          'auth_bind',
          { auth_ref: ref },
          (d) =>
            `auth ref ${d.auth_ref.name} reads its secret on this host from ${d.auth_ref.kind === 'env' ? `$${d.auth_ref.env}` : `the keyring entry ${d.auth_ref.keyring_service}/${d.auth_ref.keyring_account}`}`,
        );
      }),
    );

  auth
    .command('remove <name>')
    .description('remove a local auth ref (the keyring secret stays; use delete-secret)')
    .action(action(async ({ core, out }, name: string) => out.result('auth_remove', await removeAuth(core, name), () => `removed auth ref ${name}`)));

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
    .command('login <target>')
    .description("run the flow of an auth ref (or of an agent's auth ref): fetch an OAuth2 token, or the device-code login")
    .action(
      action(async ({ core, out, deps }, target: string) => {
        // The device code must reach the user in every output mode: stderr, whatever --quiet / --json say.
        const onDeviceCode = (p: DeviceCodePrompt) =>
          deps.io.stderr(
            `To log in as auth ref ${terminalLine(p.auth_ref)}, open ${terminalLine(p.verification_uri_complete ?? p.verification_uri)} and enter the code ${terminalLine(p.user_code)} (expires in ${Math.round(p.expires_in / 60) || 1} min).\n`,
          );
        const result = await loginAuth(core, target, { onDeviceCode });
        out.result('auth_login', result, (d) =>
          d.token_cached
            ? `logged in: auth ref ${d.auth_ref} has a token${d.expires_in !== null ? ` for ${d.expires_in} s` : ''}${d.keyring ? ' (cached in the keyring)' : ' (in memory only: the keyring is unavailable)'}`
            : `auth ref ${d.auth_ref} (flow ${d.flow}) needs no login: its secret is present`,
        );
      }),
    );

  auth
    .command('status [target]')
    .description('flow and token state of auth refs (token cached?, expires in); never the token')
    .action(
      action(async ({ core, out }, target?: string) => {
        const data = await authStatus(core, target);
        const tokenText = (s: AuthStatusView) => {
          if (!s.token_status) return '-';
          if (!s.token_status.cached) return 'no token';
          if (s.token_status.expires_in === null) return `cached (${s.token_status.where}), no expiry`;
          return s.token_status.fresh
            ? `cached (${s.token_status.where}), expires in ${s.token_status.expires_in} s`
            : `expired${s.token_status.refreshable ? ' (refreshable)' : ''}`;
        };
        const secretText = (s: AuthStatusView) => (s.secret_present === null ? 'keyring unavailable' : s.secret_present ? 'yes' : 'no');
        out.result('auth_status', data, (d) =>
          d.auth_refs.length
            ? table(
                ['name', 'flow', 'secret', 'token'],
                d.auth_refs.map((s: AuthStatusView) => [s.name, s.flow, secretText(s), tokenText(s)]),
              )
            : 'no auth refs yet: missive auth add <name> --env VAR',
        );
      }),
    );

  auth
    .command('logout <target>')
    .description('forget the cached OAuth2 tokens of an auth ref (memory and keyring); its secret stays')
    .action(
      action(async ({ core, out }, target: string) =>
        out.result('auth_logout', await logoutAuth(core, target), (d) =>
          d.dropped ? `logged out: forgot the token of ${d.name}` : `no token cached for ${d.name}`,
        ),
      ),
    );

  auth
    .command('delete-secret <name>')
    .description('delete the keyring secret of an auth ref')
    .action(
      action(async ({ core, out }, name: string) =>
        out.result('auth_delete_secret', await deleteSecret(core, name), (d) => (d.deleted ? `deleted the secret of ${name}` : `no secret stored for ${name}`)),
      ),
    );
}
