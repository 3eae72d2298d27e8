/**
 * Mutual TLS for one agent: its client certificate, private key and optional CA bundle (PEM files named in the
 * registry) become an undici `Agent` dispatcher that presents the certificate on every TLS handshake. The files are
 * read on first use; the key's passphrase comes from an auth ref (env var or OS keyring) and lives only in memory.
 * Dispatchers are cached per certificate/key/CA set (and the files' modification times, so a renewed certificate is
 * picked up). Every failure names the file: missing or unreadable files and a key that does not match the
 * certificate are config errors (exit 78); a missing or wrong passphrase is an auth error (exit 77).
 */
import { createHash, createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { constants as fsConstants, readFileSync, statSync } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import type { Dispatcher } from 'undici';
import { authError, configError, MissiveError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { loadUndici } from '../a2a/undici.js';
import { KEYRING_FALLBACK_HELP } from '../auth/secret-store.js';
import { boundRef } from '../auth/host-trust.js';
import type { AgentRow, ClientTlsPaths } from '../store/rows/agents.js';
import type { GrpcTls } from '../a2a/grpc-transport.js';
import { poolClientTls, pooledClientTls, type ClientTlsSet } from './client-tls-pool.js';
import { CLIENT_TLS_MAX_BYTES, clientTlsFileProblem } from './client-tls-paths.js';
import type { ClientTlsView } from '../../../shared/client-tls-view.js';

/** How a configured client certificate is named among the credential sources (pinning messages, `agent inspect`). */
export const CLIENT_CERTIFICATE_SOURCE = 'client certificate (client_tls)';

const CONFIG_HELP = (alias: string) =>
  `Point the agent at the right PEM files: missive agent set ${alias} --client-cert FILE --client-key FILE [--ca-cert FILE] (or client_tls in [agents.${alias}] of the config).`;

type FileRole = 'client certificate' | 'client key' | 'CA bundle';

/** A file-system error as a config error naming the file. */
function unreadable(alias: string, role: FileRole, path: string, error: unknown): never {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? 'does not exist'
      : code === 'EACCES' || code === 'EPERM'
        ? 'is not readable (permission denied)'
        : `cannot be read (${code ?? (error as Error).message})`;
  throw configError('client_tls_file_unreadable', `the ${role} file ${path} of agent "${alias}" ${why}`, CONFIG_HELP(alias));
}

/**
 * The text of one PEM file, or a config error naming it. The file is opened without blocking (a FIFO opens at once,
 * with no writer needed), and what was opened must be a regular file of at most CLIENT_TLS_MAX_BYTES (a FIFO, a device
 * such as /dev/zero or a folder is refused, exit 78, before a byte is read); the read itself is bounded by that size
 * and by the invocation's time budget.
 */
async function readPem(alias: string, role: FileRole, path: string, timeoutMs: number): Promise<string> {
  let handle: FileHandle;
  try {
    handle = await open(path, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') throw notAFile(alias, role, path, 'is a folder, not a regular PEM file', 'client_tls_not_a_file');
    unreadable(alias, role, path, error);
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    const problem = clientTlsFileProblem(await handle.stat());
    if (problem) throw notAFile(alias, role, path, problem.why, problem.code);
    const read = readUpTo(handle, CLIENT_TLS_MAX_BYTES + 1);
    read.catch(() => undefined); // after a timeout nobody awaits it
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            configError(
              'client_tls_read_timeout',
              `the ${role} file ${path} of agent "${alias}" could not be read within ${timeoutMs} ms`,
              `${CONFIG_HELP(alias)} Files on a slow network share may need a longer --timeout.`,
            ),
          ),
        timeoutMs,
      );
    });
    const bytes = await Promise.race([read, late]);
    if (bytes.length > CLIENT_TLS_MAX_BYTES)
      throw notAFile(alias, role, path, `is larger than ${CLIENT_TLS_MAX_BYTES / (1024 * 1024)} MiB: PEM files are a few KiB`, 'client_tls_file_too_large');
    return bytes.toString('utf8');
  } catch (error) {
    if (error instanceof MissiveError) throw error;
    unreadable(alias, role, path, error);
  } finally {
    clearTimeout(timer);
    // Not awaited: closing waits for a read still running (the one a timeout gave up on).
    void handle.close().catch(() => undefined);
  }
}

/** At most `limit` bytes from the start of the file (fewer at its end); each read moves on, so the loop ends. */
async function readUpTo(handle: FileHandle, limit: number): Promise<Buffer> {
  const buffer = Buffer.alloc(limit);
  let filled = 0;
  while (filled < limit) {
    const { bytesRead } = await handle.read(buffer, filled, limit - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

const notAFile = (alias: string, role: FileRole, path: string, why: string, code: string) =>
  configError(code, `the ${role} file ${path} of agent "${alias}" ${why}`, CONFIG_HELP(alias));

/** The passphrase of the agent's key from its auth ref (env var or keyring); it is never stored or printed. */
async function readPassphrase(core: Core, alias: string, refName: string): Promise<string> {
  const stored = await (await core.storage()).authRefs.get(refName);
  if (!stored) {
    throw configError(
      'unknown_auth_ref',
      `the client key passphrase of agent "${alias}" names auth ref "${refName}", which is not defined`,
      'Define it under [auth_refs.<name>] in the config, or with: missive auth add',
    );
  }
  const ref = boundRef(core, stored);
  if (ref.kind === 'env') {
    const value = core.env[ref.envVar!];
    if (!value)
      throw authError(
        'env_missing',
        `auth ref "${ref.name}" (the client key passphrase of agent "${alias}") reads environment variable ${ref.envVar}, which is not set`,
        `export ${ref.envVar}=<passphrase> and try again.`,
      );
    return value;
  }
  const available = await core.secrets.available();
  if (!available.ok)
    throw authError(
      'keyring_unavailable',
      `auth ref "${ref.name}" (the client key passphrase of agent "${alias}") needs the OS keyring: ${available.reason}`,
      KEYRING_FALLBACK_HELP,
    );
  const value = await core.secrets.get(ref.keyringService!, ref.keyringAccount!);
  if (!value) {
    throw authError(
      'keyring_missing',
      `auth ref "${ref.name}" (the client key passphrase of agent "${alias}") has no secret in the keyring`,
      `Store it with: missive auth set-secret ${ref.name} (reads the passphrase from stdin).`,
    );
  }
  return value;
}

const isEncryptedPem = (pem: string) => /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type:\s*4,ENCRYPTED/.test(pem);

/** The private key, decrypted with the passphrase when it is encrypted; errors name the file and the next step. */
function parseKey(alias: string, path: string, pem: string, passphrase: string | undefined, refName: string | undefined): KeyObject {
  if (isEncryptedPem(pem) && passphrase === undefined) {
    throw authError(
      'client_key_passphrase_missing',
      `the client key ${path} of agent "${alias}" is encrypted and no passphrase is configured`,
      `Name an auth ref that holds the passphrase: --key-passphrase-ref REF (or passphrase_ref in client_tls of [agents.${alias}]).`,
    );
  }
  try {
    return createPrivateKey({ key: pem, format: 'pem', ...(passphrase !== undefined ? { passphrase } : {}) });
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    const message = (error as Error).message;
    if (isEncryptedPem(pem) && (/BAD_DECRYPT|bad decrypt/i.test(`${code} ${message}`) || code === 'ERR_OSSL_EVP_BAD_DECRYPT')) {
      throw authError(
        'client_key_passphrase_wrong',
        `the passphrase from auth ref "${refName}" does not decrypt the client key ${path} of agent "${alias}"`,
        `Store the right passphrase: missive auth set-secret ${refName} (or set the auth ref's environment variable).`,
      );
    }
    throw configError(
      'client_tls_bad_key',
      `the client key file ${path} of agent "${alias}" is not a PEM private key${isEncryptedPem(pem) ? ' missive can decrypt' : ''}`,
      CONFIG_HELP(alias),
    );
  }
}

function parseCertificate(alias: string, path: string, pem: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw configError('client_tls_bad_certificate', `the client certificate file ${path} of agent "${alias}" is not a PEM certificate`, CONFIG_HELP(alias));
  }
}

function checkCaBundle(alias: string, path: string, pem: string): void {
  let ok = pem.includes('-----BEGIN CERTIFICATE-----');
  if (ok) {
    try {
      createSecureContext({ ca: pem });
    } catch {
      ok = false;
    }
  }
  if (!ok) throw configError('client_tls_bad_ca', `the CA bundle ${path} of agent "${alias}" holds no PEM certificate`, CONFIG_HELP(alias));
}

/** The cache key of a certificate/key/CA set: paths, modification times and (hashed) passphrase. */
async function cacheKey(paths: ClientTlsPaths, passphrase: string | undefined): Promise<string> {
  const files = [paths.certFile, paths.keyFile, paths.caFile].filter((p): p is string => !!p);
  const stamps = await Promise.all(
    files.map((p) =>
      stat(p).then(
        (s) => `${s.mtimeMs}:${s.size}`,
        () => 'missing',
      ),
    ),
  );
  const secret = passphrase === undefined ? '' : createHash('sha256').update(passphrase).digest('hex');
  return JSON.stringify([paths.certFile, paths.keyFile, paths.caFile ?? null, stamps, secret]);
}

/** Reads and checks the files, and builds the dispatcher that presents the certificate (and the gRPC material). */
async function buildSet(alias: string, paths: ClientTlsPaths, passphrase: string | undefined, id: string, timeoutMs: number): Promise<ClientTlsSet> {
  const { certFile, keyFile, caFile } = paths;
  const [certPem, keyPem, caPem] = await Promise.all([
    certFile ? readPem(alias, 'client certificate', certFile, timeoutMs) : undefined,
    keyFile ? readPem(alias, 'client key', keyFile, timeoutMs) : undefined,
    caFile ? readPem(alias, 'CA bundle', caFile, timeoutMs) : undefined,
  ]);
  let clearKey: string | undefined;
  if (certFile && keyFile && certPem !== undefined && keyPem !== undefined) {
    const certificate = parseCertificate(alias, certFile, certPem);
    const key = parseKey(alias, keyFile, keyPem, passphrase, paths.passphraseRef);
    if (!certificate.checkPrivateKey(key)) {
      throw configError(
        'client_tls_key_mismatch',
        `the client key ${keyFile} of agent "${alias}" does not belong to the certificate ${certFile}`,
        CONFIG_HELP(alias),
      );
    }
    // grpc-js takes no passphrase: its channel gets the key decrypted, in memory only.
    clearKey = passphrase === undefined ? keyPem : (key.export({ type: 'pkcs8', format: 'pem' }) as string);
  }
  if (caFile && caPem !== undefined) checkCaBundle(alias, caFile, caPem);
  const { Agent } = await loadUndici();
  const dispatcher = new Agent({
    connections: 32,
    keepAliveTimeout: 10_000,
    pipelining: 1,
    connect: {
      ...(certPem !== undefined && keyPem !== undefined ? { cert: certPem, key: keyPem } : {}),
      ...(passphrase !== undefined ? { passphrase } : {}),
      ...(caPem !== undefined ? { ca: caPem } : {}),
    },
  });
  const grpc: GrpcTls = {
    id,
    ...(certPem !== undefined && clearKey !== undefined ? { cert: certPem, key: clearKey } : {}),
    ...(caPem !== undefined ? { ca: caPem } : {}),
  };
  return { dispatcher, grpc };
}

/** Whether the agent presents a client certificate (a credential), not just a CA bundle. */
export const hasClientCertificate = (agent: Pick<AgentRow, 'clientTls'>): boolean => !!agent.clientTls?.certFile;

/**
 * The dispatcher that presents the agent's client certificate and trusts its CA bundle, or undefined when the agent
 * has neither. Only the caller decides where it may go (the agent's pinned origins: the certificate is a credential).
 */
export async function clientTlsFor(core: Core, agent: Pick<AgentRow, 'alias' | 'clientTls'>): Promise<ClientTlsSet | undefined> {
  const paths = agent.clientTls;
  if (!paths) return undefined;
  const passphrase = paths.passphraseRef ? await readPassphrase(core, agent.alias, paths.passphraseRef) : undefined;
  const key = await cacheKey(paths, passphrase);
  const id = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return pooledClientTls(key) ?? poolClientTls(key, await buildSet(agent.alias, paths, passphrase, id, core.timeoutMs));
}

/** Just the HTTP dispatcher of `clientTlsFor` (the card fetch), or undefined. */
export const clientTlsDispatcher = async (core: Core, agent: Pick<AgentRow, 'alias' | 'clientTls'>): Promise<Dispatcher | undefined> =>
  (await clientTlsFor(core, agent))?.dispatcher;

export type { ClientTlsView };

const oneLineDn = (dn: string) => dn.split('\n').filter(Boolean).join(', ');

/** The client certificate of an agent, read from its file (no key, no passphrase), or null when none is configured. */
export function clientTlsView(agent: Pick<AgentRow, 'clientTls'>, now = new Date()): ClientTlsView | null {
  const paths = agent.clientTls;
  if (!paths) return null;
  const base = {
    client_certificate: !!paths.certFile,
    cert_file: paths.certFile ?? null,
    key_file: paths.keyFile ?? null,
    ca_file: paths.caFile ?? null,
    passphrase_ref: paths.passphraseRef ?? null,
  };
  const unknown = { subject: null, issuer: null, valid_from: null, valid_to: null, expired: null, fingerprint_sha256: null };
  if (!paths.certFile) return { ...base, ...unknown, error: null };
  try {
    const problem = clientTlsFileProblem(statSync(paths.certFile));
    if (problem) return { ...base, ...unknown, error: `the certificate file ${problem.why}` };
    const cert = new X509Certificate(readFileSync(paths.certFile));
    const validTo = new Date(cert.validTo);
    return {
      ...base,
      subject: oneLineDn(cert.subject),
      issuer: oneLineDn(cert.issuer),
      valid_from: new Date(cert.validFrom).toISOString(),
      valid_to: validTo.toISOString(),
      expired: validTo.getTime() < now.getTime(),
      fingerprint_sha256: cert.fingerprint256,
      error: null,
    };
  } catch (error) {
    const { code, syscall } = error as NodeJS.ErrnoException;
    // File-system errors carry the system call; anything else is the certificate parser refusing the text.
    const error_ =
      code === 'ENOENT'
        ? 'the certificate file does not exist'
        : syscall || code === 'EISDIR'
          ? `the certificate file cannot be read (${code})`
          : 'the file is not a PEM certificate';
    return { ...base, ...unknown, error: error_ };
  }
}
