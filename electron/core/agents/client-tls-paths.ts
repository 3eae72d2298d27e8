/**
 * The registry form of an agent's mutual TLS settings: what the operator typed (`agent add --client-cert …` or
 * `client_tls` in `[agents.NAME]`) checked for completeness, with paths made absolute. Paths and names only.
 */
import { homedir } from 'node:os';
import { dirname, isAbsolute, resolve } from 'node:path';
import { configError, usageError } from '../../../shared/errors.js';
import type { EffectiveConfig } from '../config/load.js';
import type { AgentSection } from '../config/schema.js';
import type { ClientTlsPaths } from '../store/repos/agents.js';

/** What the operator typed (flags or config keys), before paths are made absolute. */
export interface ClientTlsInput {
  certFile?: string;
  keyFile?: string;
  caFile?: string;
  passphraseRef?: string;
}

/** `~/x` → the home folder; a relative path → against `baseDir`. */
const absolutePath = (path: string, baseDir: string): string =>
  path === '~' || path.startsWith('~/') ? resolve(homedir(), path.slice(2)) : isAbsolute(path) ? path : resolve(baseDir, path);

/**
 * The registry form of what the operator typed, or null when nothing was given. A certificate needs its key and a key
 * its certificate; a CA bundle alone (a server certificate from a private CA, no client certificate) is fine; a
 * passphrase ref needs a key.
 */
export function clientTlsPaths(input: ClientTlsInput, baseDir: string, names = { cert: '--client-cert', key: '--client-key' }): ClientTlsPaths | null {
  const given = [input.certFile, input.keyFile, input.caFile, input.passphraseRef].some((v) => v !== undefined && v !== '');
  if (!given) return null;
  if (!input.certFile !== !input.keyFile || (!input.certFile && !input.caFile) || (input.passphraseRef && !input.keyFile)) {
    throw usageError(
      'client_tls_incomplete',
      `mutual TLS needs a client certificate together with its private key (${names.cert} and ${names.key}); a CA bundle may also come alone, a key passphrase never`,
      `Give both: ${names.cert} FILE ${names.key} FILE (PEM files), and the passphrase's auth ref only for an encrypted key.`,
    );
  }
  return {
    ...(input.certFile && input.keyFile ? { certFile: absolutePath(input.certFile, baseDir), keyFile: absolutePath(input.keyFile, baseDir) } : {}),
    ...(input.caFile ? { caFile: absolutePath(input.caFile, baseDir) } : {}),
    ...(input.passphraseRef ? { passphraseRef: input.passphraseRef } : {}),
  };
}

/** The registry form of `client_tls` in `[agents.ALIAS]`: relative paths are read from the config file's folder. */
export function configClientTls(config: Pick<EffectiveConfig, 'source' | 'authRefs'>, alias: string, section: AgentSection['client_tls']): ClientTlsPaths | null {
  if (!section) return null;
  if (section.passphrase_ref && !config.authRefs[section.passphrase_ref]) {
    throw configError('unknown_auth_ref', `config agent "${alias}" names auth ref "${section.passphrase_ref}" for its client key passphrase, which is not defined`, `Add an [auth_refs.${section.passphrase_ref}] section.`);
  }
  const baseDir = config.source.path ? dirname(config.source.path) : process.cwd();
  const key = `agents.${alias}.client_tls`;
  return clientTlsPaths(
    { certFile: section.cert_file, keyFile: section.key_file, caFile: section.ca_file, passphraseRef: section.passphrase_ref },
    baseDir,
    { cert: `${key}.cert_file`, key: `${key}.key_file` },
  );
}
