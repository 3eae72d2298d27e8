/**
 * The registry form of an agent's mutual TLS settings: what the operator typed (`agent add --client-cert …` or
 * `client_tls` in `[agents.NAME]`) checked for completeness, with paths made absolute. `agent add|set` also checks
 * that each named file that exists is a regular file of at most CLIENT_TLS_MAX_BYTES (a FIFO, a device such as
 * /dev/zero, a folder or a huge file is refused, exit 78); the same rule applies when the files are read
 * (client-tls.ts), so a file that changes after registration cannot hang or flood a call either.
 */
import { statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, resolve } from 'node:path';
import { configError, usageError } from '../../../shared/errors.js';
import type { EffectiveConfig } from '../config/load.js';
import type { AgentSection } from '../config/schema.js';
import type { ClientTlsPaths } from '../store/rows/agents.js';
import { fileKind } from '../security/file-kind.js';

/** What the operator typed (flags or config keys), before paths are made absolute. */
export interface ClientTlsInput {
  certFile?: string;
  keyFile?: string;
  caFile?: string;
  passphraseRef?: string;
}

/** A PEM certificate, key or CA bundle is a few KiB; a CA bundle of every public root is about 200 KiB. */
export const CLIENT_TLS_MAX_BYTES = 1024 * 1024;

const MIB = 1024 * 1024;

/** What is wrong with a file that is there, by its metadata, or null when it is a regular file of a sane size. */
export function clientTlsFileProblem(stats: Stats): { code: 'client_tls_not_a_file' | 'client_tls_file_too_large'; why: string } | null {
  if (stats.isFile()) {
    if (stats.size <= CLIENT_TLS_MAX_BYTES) return null;
    return {
      code: 'client_tls_file_too_large',
      why: `is larger than ${CLIENT_TLS_MAX_BYTES / MIB} MiB (${Math.ceil(stats.size / MIB)} MiB): PEM files are a few KiB`,
    };
  }
  return { code: 'client_tls_not_a_file', why: `is ${fileKind(stats)}, not a regular PEM file` };
}

export const CLIENT_TLS_FILES_HELP = 'Give regular PEM files (at most 1 MiB each): --client-cert FILE --client-key FILE [--ca-cert FILE].';

/**
 * Refuses a named file that exists and is not a regular file of a sane size (exit 78, naming the flag and the path).
 * A file that does not exist yet passes: it is reported, naming the path, when a call first needs it.
 */
export function checkClientTlsFiles(paths: ClientTlsPaths, names = { cert: '--client-cert', key: '--client-key', ca: '--ca-cert' }): void {
  for (const [name, path] of [
    [names.cert, paths.certFile],
    [names.key, paths.keyFile],
    [names.ca, paths.caFile],
  ] as const) {
    if (!path) continue;
    let stats: Stats;
    try {
      stats = statSync(path);
    } catch {
      continue;
    }
    const problem = clientTlsFileProblem(stats);
    if (problem) throw configError(problem.code, `the ${name} file ${path} ${problem.why}`, CLIENT_TLS_FILES_HELP);
  }
}

/** `~/x` → the home folder; a relative path → against `baseDir`. */
const absolutePath = (path: string, baseDir: string): string =>
  path === '~' || path.startsWith('~/') ? resolve(homedir(), path.slice(2)) : isAbsolute(path) ? path : resolve(baseDir, path);

/**
 * The registry form of what the operator typed at `agent add|set`, or null when nothing was given: its files checked
 * (checkClientTlsFiles), so a FIFO, a device, a folder or a huge file is refused before it is registered.
 */
export function clientTlsPaths(input: ClientTlsInput, baseDir: string): ClientTlsPaths | null {
  const paths = typedPaths(input, baseDir);
  if (paths) checkClientTlsFiles(paths);
  return paths;
}

/**
 * The registry form of what the operator typed, or null when nothing was given. A certificate needs its key and a key
 * its certificate; a CA bundle alone (a server certificate from a private CA, no client certificate) is fine; a
 * passphrase ref needs a key.
 */
function typedPaths(input: ClientTlsInput, baseDir: string, names = { cert: '--client-cert', key: '--client-key' }): ClientTlsPaths | null {
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

/**
 * The registry form of `client_tls` in `[agents.ALIAS]`: relative paths are read from the config file's folder. The
 * files are not opened here (loading the config must not depend on them); they are checked when a call reads them.
 */
export function configClientTls(
  config: Pick<EffectiveConfig, 'source' | 'authRefs'>,
  alias: string,
  section: AgentSection['client_tls'],
): ClientTlsPaths | null {
  if (!section) return null;
  if (section.passphrase_ref && !config.authRefs[section.passphrase_ref]) {
    throw configError(
      'unknown_auth_ref',
      `config agent "${alias}" names auth ref "${section.passphrase_ref}" for its client key passphrase, which is not defined`,
      `Add an [auth_refs.${section.passphrase_ref}] section.`,
    );
  }
  const baseDir = config.source.path ? dirname(config.source.path) : process.cwd();
  const key = `agents.${alias}.client_tls`;
  return typedPaths({ certFile: section.cert_file, keyFile: section.key_file, caFile: section.ca_file, passphraseRef: section.passphrase_ref }, baseDir, {
    cert: `${key}.cert_file`,
    key: `${key}.key_file`,
  });
}
