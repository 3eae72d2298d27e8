/**
 * Mutual TLS settings as the operator types them (paths made absolute, half a certificate refused), what inspect shows
 * of a certificate (subject, expiry; an expired one is flagged), and the help a failed TLS handshake carries.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientTlsPaths, configClientTls } from '../../electron/core/agents/client-tls-paths.js';
import { clientTlsView } from '../../electron/core/agents/client-tls.js';
import { tlsFailureHelp } from '../../electron/core/a2a/tls-errors.js';
import { isMissiveError } from '../../shared/errors.js';
import { makeTlsFiles, type TlsFiles } from '../support/mtls-peer.js';

let files: TlsFiles;
beforeAll(() => {
  files = makeTlsFiles();
});
afterAll(() => rmSync(files.dir, { recursive: true, force: true }));

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (isMissiveError(error)) return error;
  }
  throw new Error('expected a MissiveError');
};

describe('client TLS paths', () => {
  it('makes relative paths absolute against the given folder and ~ against the home folder', () => {
    expect(clientTlsPaths({ certFile: 'c.pem', keyFile: '~/k.pem', caFile: '/etc/ca.pem', passphraseRef: 'pp' }, '/work/certs')).toEqual({
      certFile: '/work/certs/c.pem',
      keyFile: join(homedir(), 'k.pem'),
      caFile: '/etc/ca.pem',
      passphraseRef: 'pp',
    });
    expect(clientTlsPaths({}, '/x')).toBeNull();
    expect(clientTlsPaths({ caFile: 'ca.pem' }, '/x')).toEqual({ caFile: '/x/ca.pem' });
  });

  it('refuses a certificate without its key, a key without its certificate and a passphrase without a key (usage, exit 64)', () => {
    for (const input of [{ certFile: 'c.pem' }, { keyFile: 'k.pem' }, { caFile: 'ca.pem', passphraseRef: 'pp' }]) {
      const error = refusal(() => clientTlsPaths(input, '/x'));
      expect(error.exitCode).toBe(64);
      expect(error.message).toContain('--client-key');
    }
  });

  it('reads config paths from the config file folder and checks the passphrase auth ref exists', () => {
    const config = {
      source: { kind: 'flag' as const, path: '/etc/missive/missive.toml', searched: [] },
      authRefs: { pp: { kind: 'env' as const, env: 'PP' } },
    };
    expect(configClientTls(config as never, 'bank', { cert_file: 'c.pem', key_file: 'k.pem', passphrase_ref: 'pp' })).toEqual({
      certFile: '/etc/missive/c.pem',
      keyFile: '/etc/missive/k.pem',
      passphraseRef: 'pp',
    });
    const error = refusal(() => configClientTls(config as never, 'bank', { cert_file: 'c.pem', key_file: 'k.pem', passphrase_ref: 'nope' }));
    expect(error.exitCode).toBe(78);
    expect(error.message).toContain('"nope"');
    const half = refusal(() => configClientTls(config as never, 'bank', { cert_file: 'c.pem' }));
    expect(half.message).toContain('agents.bank.client_tls.key_file');
  });
});

describe('client certificate view', () => {
  it('shows subject, issuer and expiry, flags an expired certificate, and says why an unreadable one is not shown', () => {
    const agent = { clientTls: { certFile: files.clientCert, keyFile: files.clientKey } };
    const now = clientTlsView(agent)!;
    expect(now).toMatchObject({ client_certificate: true, expired: false, error: null, key_file: files.clientKey });
    expect(now.subject).toContain('CN=missive-test-client');
    expect(now.issuer).toBe('CN=missive test CA');
    expect(now.fingerprint_sha256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const later = clientTlsView(agent, new Date(Date.parse(now.valid_to!) + 1000))!;
    expect(later.expired).toBe(true);
    expect(clientTlsView({ clientTls: { certFile: join(files.dir, 'missing.pem'), keyFile: files.clientKey } })!.error).toBe(
      'the certificate file does not exist',
    );
    expect(clientTlsView({ clientTls: { certFile: files.clientKey, keyFile: files.clientKey } })!.error).toBe('the file is not a PEM certificate');
    expect(clientTlsView({ clientTls: { caFile: files.caCert } })).toMatchObject({
      client_certificate: false,
      cert_file: null,
      ca_file: files.caCert,
      error: null,
    });
    expect(clientTlsView({ clientTls: null })).toBeNull();
  });
});

describe('TLS failure help', () => {
  it('names --ca-cert for an untrusted server certificate and --client-cert for a refused handshake', () => {
    expect(tlsFailureHelp('SELF_SIGNED_CERT_IN_CHAIN', 'https://a.example/')).toContain('--ca-cert FILE');
    expect(tlsFailureHelp('ERR_TLS_CERT_ALTNAME_INVALID', 'https://a.example/')).toContain('--ca-cert FILE');
    expect(tlsFailureHelp('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'https://a.example/')).toContain('--client-cert FILE');
    expect(tlsFailureHelp('UND_ERR_SOCKET', 'https://a.example/')).toContain('--client-cert FILE');
    expect(tlsFailureHelp('UND_ERR_SOCKET', 'http://a.example/')).toBeUndefined();
    expect(tlsFailureHelp(undefined, 'https://a.example/')).toBeUndefined();
  });
});
