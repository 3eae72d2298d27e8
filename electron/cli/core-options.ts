/** From the global flags to the core: the options `createCore` is built with, and the literal secrets outputs scrub. */
import type { CoreOptions } from '../core/context.js';
import type { Core } from '../core/handle.js';
import { parseDuration } from '../core/config/duration.js';
import { storeUrlSecrets } from '../core/config/store-url.js';
import { STORE_URL_ENV } from '../core/store/selection.js';
import type { CliDeps, GlobalFlags } from './command-context.js';

/** The core options of one invocation: its process deps and its global flags (`--timeout` parsed: exit 64 if bad). */
export function coreOptions(flags: GlobalFlags, deps: CliDeps, onWarning: (message: string) => void): CoreOptions {
  return {
    env: deps.env,
    cwd: deps.cwd,
    secrets: deps.secrets,
    configPath: flags.config,
    profile: flags.profile,
    timeoutMs: flags.timeout ? parseDuration(flags.timeout, '--timeout') : undefined,
    protocolVersion: flags.protocolVersion,
    extensions: flags.a2aExtension,
    serviceParams: flags.serviceParam,
    bearerTokenEnv: flags.bearerTokenEnv,
    headers: flags.header,
    allowCrossOriginAuth: flags.allowCrossOriginAuth,
    requireSignedCard: flags.requireSignedCard,
    storeUrl: flags.store,
    onWarning,
  };
}

/** Literal secrets scrubbed from any output: env-sourced ones named on the command line or in the config, and every credential sent. */
export function knownSecrets(core: Core, flags: GlobalFlags): string[] {
  const out: string[] = [];
  if (flags.bearerTokenEnv && core.env[flags.bearerTokenEnv]) out.push(core.env[flags.bearerTokenEnv]!);
  for (const h of flags.header) {
    const value = h.slice(h.indexOf(':') + 1).trim();
    out.push(value, value.replace(/^\S+\s+/, ''));
  }
  for (const ref of Object.values(core.config.authRefs)) if (ref.env && core.env[ref.env]) out.push(core.env[ref.env]!);
  // The store's password: in --store's or MISSIVE_STORE_URL's URL, or the variable [store] password_env names.
  out.push(...storeUrlSecrets(flags.store), ...storeUrlSecrets(core.env[STORE_URL_ENV]));
  if (core.config.store.passwordEnv && core.env[core.config.store.passwordEnv]) out.push(core.env[core.config.store.passwordEnv]!);
  if (core.storeSelection.kind === 'postgres' && core.env.PGPASSWORD) out.push(core.env.PGPASSWORD);
  // Every credential sent in this run, whatever its source (auth refs of the registry, the keyring, OAuth tokens).
  out.push(...core.knownSecrets());
  return out.filter((s) => s.length >= 4);
}
