/**
 * Mutual TLS end to end: an SDK agent over node:https that requires a client certificate from a throw-away CA made
 * with openssl in the test. With the certificate the usual commands work; without it, with a wrong passphrase or a
 * key that does not fit, the user gets a clear error naming what to fix, and the passphrase never reaches SQLite or
 * the output.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeTlsFiles, startMtlsAgent, type MtlsAgent, type TlsFiles } from '../support/mtls-peer.js';
import { stateBytes, readDb, sandbox, type Sandbox } from '../support/cli.js';

let files: TlsFiles;
let agent: MtlsAgent;
let box: Sandbox;

/** Every byte of the profile's SQLite files (database, WAL), as text. */

beforeAll(async () => {
  files = makeTlsFiles();
  agent = await startMtlsAgent(files);
});
afterAll(async () => {
  await agent.close();
  rmSync(files.dir, { recursive: true, force: true });
});
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.dispose());

const addWithCert = (alias: string, key = files.clientKey, extra: string[] = []) =>
  box.run(['agent', 'add', alias, agent.baseUrl, '--client-cert', files.clientCert, '--client-key', key, '--ca-cert', files.caCert, ...extra]);

describe('mutual TLS', () => {
  it('reaches an agent that requires a client certificate with the same commands as any agent', async () => {
    const added = await addWithCert('secure', files.clientKey, ['--json']);
    expect(added.code).toBe(0);
    expect(added.json().data.agent.client_tls).toEqual({ cert_file: files.clientCert, key_file: files.clientKey, ca_file: files.caCert, passphrase_ref: null });

    const inspected = await box.run(['agent', 'inspect', 'secure', '--json']);
    expect(inspected.code).toBe(0);
    const view = inspected.json().data;
    expect(view.card.name).toBe('mTLS agent');
    expect(view.client_tls).toMatchObject({ client_certificate: true, cert_file: files.clientCert, expired: false, error: null });
    expect(view.client_tls.subject).toContain('CN=missive-test-client');
    expect(view.client_tls.issuer).toContain('CN=missive test CA');
    expect(view.origin_pinning).toMatchObject({ configured: ['client certificate (client_tls)'], decision: 'send' });
    const human = await box.run(['agent', 'inspect', 'secure']);
    expect(human.stdout).toMatch(/client certificate\s+CN=missive-test-client.*issued by CN=missive test CA.*valid until/);

    // The gRPC interface is on another port, another origin: the certificate is a credential and stays pinned. Its
    // TLS server checks client certificates, so the gRPC send below proves the certificate reached it.
    const pinned = await box.run(['send', 'secure', 'hi', '--binding', 'grpc', '--json']);
    expect(pinned.code).toBe(77);
    expect(JSON.parse(pinned.stderr).data).toMatchObject({ category: 'auth', code: 'missive::auth::cross_origin_credentials' });
    expect(JSON.parse(pinned.stderr).data.message).toContain('client certificate (client_tls)');
    await box.run(['agent', 'remove', 'secure']);
    expect((await addWithCert('secure', files.clientKey, ['--trust-origin', agent.grpcUrl])).code).toBe(0);

    for (const binding of ['http+json', 'json-rpc', 'grpc'] as const) {
      const sent = await box.run(['send', 'secure', `hello over ${binding}`, '--binding', binding, '--json']);
      expect(sent.code).toBe(0);
      expect(sent.json().data.response.message.parts[0].text).toBe(`mtls echo: hello over ${binding}`);
    }
    const streamed = await box.run(['stream', 'secure', 'a stream', '--json']);
    expect(streamed.code).toBe(0);
    expect(streamed.stdout).toContain('mtls echo: a stream');
    expect(agent.clients.length).toBeGreaterThan(0);
    expect(new Set(agent.clients)).toEqual(new Set(['missive-test-client']));
    const doctor = await box.run(['doctor', '--json']);
    const probe = doctor.json().data.checks.find((c: { name: string }) => c.name === 'a2a.endpoint.secure');
    expect(probe).toMatchObject({ status: 'ok' });
  });

  it('takes client_tls from the config file, relative paths from its folder', async () => {
    const config = join(files.dir, 'missive.toml');
    writeFileSync(
      config,
      `[agents.cfg]\nbase_url = "${agent.baseUrl}"\nclient_tls = { cert_file = "client.pem", key_file = "client.key", ca_file = "ca.pem" }\n`,
    );
    const sent = await box.run(['send', 'cfg', 'from config', '--config', config, '--json']);
    expect(sent.code).toBe(0);
    expect(sent.json().data.response.message.parts[0].text).toBe('mtls echo: from config');
    const shown = await box.run(['agent', 'show', 'cfg', '--config', config, '--json']);
    expect(shown.json().data.agent.client_tls.cert_file).toBe(join(files.dir, 'client.pem'));
  });

  it('without a client certificate, or without trusting the CA, the handshake fails with a transport error naming the fix; agent set adds the certificate', async () => {
    // Trusting the CA alone: the server certificate verifies, but no client certificate is presented.
    expect((await box.run(['agent', 'add', 'nocert', agent.baseUrl, '--ca-cert', files.caCert])).code).toBe(0);
    const before = agent.clients.length;
    const res = await box.run(['agent', 'inspect', 'nocert', '--json']);
    expect(res.code).toBe(69);
    const error = JSON.parse(res.stderr).data;
    expect(error).toMatchObject({ category: 'transport' });
    expect(error.message).toContain(agent.baseUrl);
    expect(error.help).toContain('--client-cert FILE --client-key FILE');
    expect(agent.clients.length).toBe(before);

    // Giving the agent its certificate afterwards (a task-holding agent cannot be removed and re-added).
    const set = await box.run([
      'agent',
      'set',
      'nocert',
      '--client-cert',
      files.clientCert,
      '--client-key',
      files.clientKey,
      '--ca-cert',
      files.caCert,
      '--json',
    ]);
    expect(set.code).toBe(0);
    expect(set.json().data.agent.client_tls).toMatchObject({ cert_file: files.clientCert, ca_file: files.caCert });
    expect((await box.run(['agent', 'inspect', 'nocert'])).code).toBe(0);
    expect(agent.clients.at(-1)).toBe('missive-test-client');
    const cleared = await box.run(['agent', 'set', 'nocert', '--clear-client-tls', '--json']);
    expect(cleared.json().data.agent.client_tls).toBeNull();
    expect((await box.run(['agent', 'set', 'nocert', '--json'])).code).toBe(64);

    // Not trusting the CA at all: missive refuses the agent's certificate.
    expect((await box.run(['agent', 'add', 'untrusted', agent.baseUrl, '--client-cert', files.clientCert, '--client-key', files.clientKey])).code).toBe(0);
    const untrusted = await box.run(['agent', 'inspect', 'untrusted', '--json']);
    expect(untrusted.code).toBe(69);
    const refused = JSON.parse(untrusted.stderr).data;
    expect(refused.message).toMatch(/certificate/i);
    expect(refused.help).toContain('--ca-cert FILE');
  });

  it('decrypts an encrypted key with the passphrase from an env auth ref, and never stores or prints it', async () => {
    expect((await box.run(['auth', 'add', 'keypass', '--env', 'CLIENT_KEY_PASS'])).code).toBe(0);
    expect((await addWithCert('enc', files.clientKeyEncrypted, ['--key-passphrase-ref', 'keypass'])).code).toBe(0);
    const env = { CLIENT_KEY_PASS: files.passphrase };
    const outputs: string[] = [];
    const inspected = await box.run(['agent', 'inspect', 'enc', '--json'], { env });
    outputs.push(inspected.stdout, inspected.stderr);
    expect(inspected.code).toBe(0);
    expect(inspected.json().data.client_tls).toMatchObject({ passphrase_ref: 'keypass', key_file: files.clientKeyEncrypted });
    const sent = await box.run(['send', 'enc', 'secret key', '--json', '--show-wire'], { env });
    outputs.push(sent.stdout, sent.stderr);
    expect(sent.code).toBe(0);
    expect(sent.stdout).toContain('mtls echo: secret key');
    const exported = await box.run(['events', 'list', '--json'], { env });
    outputs.push(exported.stdout, exported.stderr);

    const missing = await box.run(['agent', 'inspect', 'enc', '--refresh', '--json']);
    expect(missing.code).toBe(77);
    expect(JSON.parse(missing.stderr).data).toMatchObject({ category: 'auth', code: 'missive::auth::env_missing' });
    expect(JSON.parse(missing.stderr).data.help).toContain('CLIENT_KEY_PASS');

    const wrong = await box.run(['agent', 'inspect', 'enc', '--refresh', '--json'], { env: { CLIENT_KEY_PASS: 'not-the-passphrase' } });
    expect(wrong.code).toBe(77);
    const report = JSON.parse(wrong.stderr).data;
    expect(report).toMatchObject({ category: 'auth', code: 'missive::auth::client_key_passphrase_wrong' });
    expect(report.message).toContain(files.clientKeyEncrypted);
    expect(report.message).not.toContain('not-the-passphrase');
    outputs.push(wrong.stdout, wrong.stderr);

    // The same passphrase from the OS keyring (the sandbox's in-memory secret store).
    expect((await box.run(['auth', 'add', 'keyring-pass', '--keyring-service', 'missive-mtls', '--keyring-account', 'enc'])).code).toBe(0);
    const stored = await box.run(['auth', 'set-secret', 'keyring-pass'], { stdin: `${files.passphrase}\n` });
    expect(stored.code).toBe(0);
    outputs.push(stored.stdout, stored.stderr);
    expect((await addWithCert('enc-kr', files.clientKeyEncrypted, ['--key-passphrase-ref', 'keyring-pass'])).code).toBe(0);
    const viaKeyring = await box.run(['send', 'enc-kr', 'from the keyring', '--json']);
    outputs.push(viaKeyring.stdout, viaKeyring.stderr);
    expect(viaKeyring.code).toBe(0);
    expect(viaKeyring.stdout).toContain('mtls echo: from the keyring');

    for (const text of [...outputs, stateBytes(box.home)]) expect(text).not.toContain(files.passphrase);
    readDb(box, (db) => {
      const row = db.prepare('SELECT client_tls_json FROM agents WHERE alias = ?').get('enc') as { client_tls_json: string };
      expect(JSON.parse(row.client_tls_json)).toEqual({
        certFile: files.clientCert,
        keyFile: files.clientKeyEncrypted,
        caFile: files.caCert,
        passphraseRef: 'keypass',
      });
    });
  });

  it('names the file when a key is encrypted without a passphrase ref, missing, or not the certificate’s', async () => {
    await addWithCert('nopass', files.clientKeyEncrypted);
    const nopass = await box.run(['agent', 'inspect', 'nopass', '--json']);
    expect(nopass.code).toBe(77);
    expect(JSON.parse(nopass.stderr).data).toMatchObject({ category: 'auth', code: 'missive::auth::client_key_passphrase_missing' });
    expect(JSON.parse(nopass.stderr).data.help).toContain('--key-passphrase-ref');

    await addWithCert('gone', join(files.dir, 'no-such.key'));
    const gone = await box.run(['agent', 'inspect', 'gone', '--json']);
    expect(gone.code).toBe(78);
    const goneReport = JSON.parse(gone.stderr).data;
    expect(goneReport).toMatchObject({ category: 'config', code: 'missive::config::client_tls_file_unreadable' });
    expect(goneReport.message).toContain(`client key file ${join(files.dir, 'no-such.key')}`);
    expect(goneReport.message).toContain('does not exist');

    await addWithCert('stray', files.strayKey);
    const strayRes = await box.run(['send', 'stray', 'hi', '--json']);
    expect(strayRes.code).toBe(78);
    expect(JSON.parse(strayRes.stderr).data).toMatchObject({ category: 'config', code: 'missive::config::client_tls_key_mismatch' });
    expect(JSON.parse(strayRes.stderr).data.message).toContain(files.strayKey);
  });

  it('refuses half a client certificate at agent add', async () => {
    const res = await box.run(['agent', 'add', 'half', agent.baseUrl, '--client-cert', files.clientCert, '--json']);
    expect(res.code).toBe(64);
    expect(JSON.parse(res.stderr).data.message).toContain('--client-key');
    expect((await box.run(['agent', 'show', 'half'])).code).toBe(64);
  });
});
