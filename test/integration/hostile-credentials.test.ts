/**
 * Hostile credential inputs. Mutual TLS files that are not regular files of a sane size (a FIFO, /dev/zero, a folder,
 * a huge file) are refused at `agent add|set` (exit 78, naming the path), and when a registered file later becomes
 * one, `send` fails with exit 78 at once instead of hanging or reading forever. OAuth tokens with CR, LF or other
 * control characters (from a token endpoint, a device-code login or typed in) are refused (exit 77), never stored
 * and never printed.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, copyFileSync, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, stateBytes, type CliResult, type Sandbox } from '../support/cli.js';
import { makeTlsFiles, startMtlsAgent, type MtlsAgent, type TlsFiles } from '../support/mtls-peer.js';
import { json, startRawServer, type RawServer } from '../support/raw-server.js';

let box: Sandbox;
const closers: Array<() => Promise<void>> = [];
beforeEach(() => {
  box = sandbox({ CS: 'cs-5d1e07a9c3', NOPE: '' });
});
afterEach(async () => {
  box.dispose();
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** The error report of a failed `--json` run (a device-code prompt may come before it on stderr). */
const errorOf = (res: CliResult) => {
  const text = res.stderr || res.stdout;
  return JSON.parse(text.slice(text.search(/^\{/m))).data;
};

/** The run, or a failure naming what hung after `ms` (a FIFO read never returns on its own). */
async function within(ms: number, what: string, run: Promise<CliResult>): Promise<CliResult> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([run, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describe('mutual TLS files that are not regular files', () => {
  let files: TlsFiles;
  let agent: MtlsAgent;
  let dir: string;
  const fifos: string[] = [];
  beforeAll(async () => {
    files = makeTlsFiles();
    agent = await startMtlsAgent(files);
  });
  afterAll(async () => {
    await agent.close();
    rmSync(files.dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'missive-hostile-tls-'));
  });
  afterEach(() => {
    // A reader still blocked on a FIFO (the code before the fix) gets end-of-file, so nothing hangs the test process.
    for (const fifo of fifos.splice(0)) {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // No reader: nothing to release.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const fifo = (name: string) => {
    const path = join(dir, name);
    execFileSync('mkfifo', [path]);
    fifos.push(path);
    return path;
  };
  const huge = (name: string) => {
    const path = join(dir, name);
    writeFileSync(path, '');
    truncateSync(path, 64 * 1024 * 1024); // sparse: 64 MiB on paper, nothing on disk
    return path;
  };
  const folder = (name: string) => {
    const path = join(dir, name);
    mkdirSync(path);
    return path;
  };
  const toDevZero = (name: string) => {
    const path = join(dir, name);
    symlinkSync('/dev/zero', path);
    return path;
  };

  const cases: Array<{ what: string; flag: '--client-cert' | '--client-key' | '--ca-cert'; make: () => string; code: string; says: RegExp }> = [
    { what: 'a FIFO as the client certificate', flag: '--client-cert', make: () => fifo('cert.pem'), code: 'client_tls_not_a_file', says: /FIFO/ },
    { what: '/dev/zero as the client key', flag: '--client-key', make: () => '/dev/zero', code: 'client_tls_not_a_file', says: /device/ },
    { what: 'a link to /dev/zero as the client key', flag: '--client-key', make: () => toDevZero('key.pem'), code: 'client_tls_not_a_file', says: /device/ },
    { what: 'a folder as the CA bundle', flag: '--ca-cert', make: () => folder('ca'), code: 'client_tls_not_a_file', says: /folder/ },
    {
      what: 'a 64 MiB file as the client certificate',
      flag: '--client-cert',
      make: () => huge('cert.pem'),
      code: 'client_tls_file_too_large',
      says: /larger than/,
    },
  ];

  const argsWith = (flag: string, path: string) => {
    const given: Record<string, string> = { '--client-cert': files.clientCert, '--client-key': files.clientKey, '--ca-cert': files.caCert, [flag]: path };
    return Object.entries(given).flat();
  };

  for (const c of cases) {
    it(`refuses ${c.what} at agent add and agent set (exit 78, naming the path) and keeps what was registered`, async () => {
      const path = c.make();
      const added = await within(10_000, 'agent add', box.run(['agent', 'add', 'bad', agent.baseUrl, ...argsWith(c.flag, path), '--json']));
      expect(added.code, added.stderr).toBe(78);
      const error = errorOf(added);
      expect(error).toMatchObject({ category: 'config', code: `missive::config::${c.code}` });
      expect(error.message).toContain(path);
      expect(error.message).toMatch(c.says);
      expect(error.help).toMatch(/--client-cert FILE/);
      expect((await box.run(['agent', 'show', 'bad'])).code).toBe(64);

      expect(
        (await box.run(['agent', 'add', 'good', agent.baseUrl, '--client-cert', files.clientCert, '--client-key', files.clientKey, '--ca-cert', files.caCert]))
          .code,
      ).toBe(0);
      const set = await within(10_000, 'agent set', box.run(['agent', 'set', 'good', ...argsWith(c.flag, path), '--json']));
      expect(set.code, set.stderr).toBe(78);
      expect(errorOf(set).code).toBe(`missive::config::${c.code}`);
      expect(errorOf(set).message).toContain(path);
      const shown = await box.run(['agent', 'show', 'good', '--json']);
      expect(shown.json().data.agent.client_tls).toEqual({
        cert_file: files.clientCert,
        key_file: files.clientKey,
        ca_file: files.caCert,
        passphrase_ref: null,
      });
    });
  }

  /** Registers an agent with copies of the good files, then lets `spoil` replace one of them. */
  async function registeredThenSpoiled(spoil: (paths: { cert: string; key: string; ca: string }) => string): Promise<string> {
    const paths = { cert: join(dir, 'client.pem'), key: join(dir, 'client.key'), ca: join(dir, 'ca.pem') };
    copyFileSync(files.clientCert, paths.cert);
    copyFileSync(files.clientKey, paths.key);
    copyFileSync(files.caCert, paths.ca);
    const added = await box.run(['agent', 'add', 'later', agent.baseUrl, '--client-cert', paths.cert, '--client-key', paths.key, '--ca-cert', paths.ca]);
    expect(added.code, added.stderr).toBe(0);
    expect((await box.run(['send', 'later', 'before', '--json'])).code).toBe(0);
    return spoil(paths);
  }

  it('fails a send at once (exit 78) when the registered client key has become a FIFO, within --timeout', async () => {
    const path = await registeredThenSpoiled(({ key }) => {
      rmSync(key);
      execFileSync('mkfifo', [key]);
      fifos.push(key);
      return key;
    });
    const sent = await within(8_000, 'send with a FIFO as the client key', box.run(['send', 'later', 'hi', '--timeout', '3s', '--json']));
    expect(sent.code, sent.stderr).toBe(78);
    expect(errorOf(sent)).toMatchObject({ code: 'missive::config::client_tls_not_a_file' });
    expect(errorOf(sent).message).toContain(path);
  });

  it('fails a send at once (exit 78) when the registered CA bundle now points at /dev/zero, or has grown huge', async () => {
    const zero = await registeredThenSpoiled(({ ca }) => {
      rmSync(ca);
      symlinkSync('/dev/zero', ca);
      return ca;
    });
    const sent = await within(8_000, 'send with /dev/zero as the CA bundle', box.run(['send', 'later', 'hi', '--timeout', '3s', '--json']));
    expect(sent.code, sent.stderr).toBe(78);
    expect(errorOf(sent)).toMatchObject({ code: 'missive::config::client_tls_not_a_file' });
    expect(errorOf(sent).message).toContain(zero);

    rmSync(zero);
    copyFileSync(files.caCert, zero);
    truncateSync(join(dir, 'client.pem'), 64 * 1024 * 1024);
    const big = await within(8_000, 'send with a huge client certificate', box.run(['send', 'later', 'hi', '--timeout', '3s', '--json']));
    expect(big.code, big.stderr).toBe(78);
    expect(errorOf(big)).toMatchObject({ code: 'missive::config::client_tls_file_too_large' });
    expect(errorOf(big).message).toContain(join(dir, 'client.pem'));
  });
});

describe('OAuth tokens with control characters', () => {
  const EVIL = 'at-evil-91c3';
  let idp: RawServer;
  let agentHits: RawServer;
  beforeEach(async () => {
    idp = await startRawServer();
    agentHits = await startRawServer();
    closers.push(
      () => idp.close(),
      () => agentHits.close(),
    );
  });

  const tokenAccount = (ref: string) => `default/${ref}`;
  const stored = (ref: string) => box.secrets.get('missive-oauth', tokenAccount(ref));

  async function expectRefused(res: CliResult, ref: string) {
    expect(res.code, res.stderr).toBe(77);
    const error = errorOf(res);
    expect(error).toMatchObject({ category: 'auth', code: 'missive::auth::token_control_characters' });
    expect(error.message).toContain(ref);
    expect(res.stdout + res.stderr).not.toContain(EVIL);
    expect(await stored(ref)).toBeNull();
    const status = await box.run(['auth', 'status', ref, '--json']);
    expect(status.json().data.auth_refs[0].token_status).toMatchObject({ cached: false });
    const events = await box.run(['events', 'list', '--json']);
    expect(events.stdout).not.toContain(EVIL);
    expect(stateBytes(box.home)).not.toContain(EVIL);
  }

  it('refuses a client-credentials token with CR LF from the token endpoint at auth login (exit 77), stores nothing', async () => {
    idp.route('/token', (_req, res) => json(res, 200, { access_token: `${EVIL}\r\nX-Injected: yes`, token_type: 'Bearer', expires_in: 3600 }));
    await box.run(['auth', 'add', 'cc', '--env', 'CS', '--flow', 'oauth2_client_credentials', '--token-url', `${idp.url}/token`, '--client-id', 'c1']);
    await expectRefused(await box.run(['auth', 'login', 'cc', '--json']), 'cc');
  });

  it('refuses such a token at send too, before anything reaches the agent', async () => {
    idp.route('/token', (_req, res) => json(res, 200, { access_token: `${EVIL}\nX-Injected: yes`, token_type: 'Bearer', expires_in: 3600 }));
    agentHits.route('/.well-known/agent-card.json', (_req, res) => json(res, 200, { name: 'x' }));
    await box.run(['auth', 'add', 'cc', '--env', 'CS', '--flow', 'oauth2_client_credentials', '--token-url', `${idp.url}/token`, '--client-id', 'c1']);
    expect((await box.run(['agent', 'add', 'target', agentHits.url, '--auth-ref', 'cc'])).code).toBe(0);
    const sent = await box.run(['send', 'target', 'hi', '--json']);
    await expectRefused(sent, 'cc');
    expect(agentHits.requests).toEqual([]);
  });

  it('refuses a device-code token with other control characters (exit 77), stores nothing', async () => {
    idp.route('/device', (_req, res) =>
      json(res, 200, { device_code: 'dc-1', user_code: 'ABCD-EFGH', verification_uri: `${idp.url}/activate`, expires_in: 60, interval: 0.01 }),
    );
    idp.route('/token', (_req, res) => json(res, 200, { access_token: `${EVIL}\u0007\u001b[2J`, token_type: 'Bearer' }));
    await box.run([
      'auth',
      'add',
      'dev',
      '--env',
      'NOPE',
      '--flow',
      'oauth2_device_code',
      '--token-url',
      `${idp.url}/token`,
      '--device-authorization-url',
      `${idp.url}/device`,
      '--client-id',
      'c1',
    ]);
    await expectRefused(await box.run(['auth', 'login', 'dev', '--json']), 'dev');
  });

  it('refuses a typed secret with CR or LF inside: set-secret stores nothing, auth login of an env token exits 77', async () => {
    await box.run(['auth', 'add', 'kr', '--keyring-service', 'missive-test', '--keyring-account', 'kr']);
    const typed = await box.run(['auth', 'set-secret', 'kr', '--json'], { stdin: `${EVIL}\r\nX-Injected: yes\n` });
    expect(typed.code, typed.stderr).toBe(77);
    expect(errorOf(typed).code).toBe('missive::auth::token_control_characters');
    expect(typed.stdout + typed.stderr).not.toContain(EVIL);
    expect(await box.secrets.get('missive-test', 'kr')).toBeNull();

    await box.run(['auth', 'add', 'envtok', '--env', 'EVIL_TOKEN']);
    const login = await box.run(['auth', 'login', 'envtok', '--json'], { env: { EVIL_TOKEN: `${EVIL}\r\nX-Injected: yes` } });
    expect(login.code, login.stdout).toBe(77);
    expect(errorOf(login)).toMatchObject({ code: 'missive::auth::token_control_characters' });
    expect(errorOf(login).message).toContain('EVIL_TOKEN');
    expect(login.stdout + login.stderr).not.toContain(EVIL);
  });

  it('refuses an env secret or --bearer-token-env value with CR LF at send (exit 77) before anything reaches the agent', async () => {
    agentHits.route('/.well-known/agent-card.json', (_req, res) => json(res, 200, { name: 'x' }));
    await box.run(['auth', 'add', 'envtok', '--env', 'EVIL_TOKEN']);
    expect((await box.run(['agent', 'add', 'target', agentHits.url, '--auth-ref', 'envtok'])).code).toBe(0);
    expect((await box.run(['agent', 'add', 'bare', agentHits.url])).code).toBe(0);
    const env = { EVIL_TOKEN: `${EVIL}\r\nX-Injected: yes` };
    const viaRef = await box.run(['send', 'target', 'hi', '--json'], { env });
    const viaFlag = await box.run(['send', 'bare', 'hi', '--bearer-token-env', 'EVIL_TOKEN', '--json'], { env });
    for (const [res, names] of [
      [viaRef, 'envtok'],
      [viaFlag, 'EVIL_TOKEN'],
    ] as const) {
      expect(res.code, res.stderr).toBe(77);
      expect(errorOf(res)).toMatchObject({ code: 'missive::auth::token_control_characters' });
      expect(errorOf(res).message).toContain(names);
      expect(res.stdout + res.stderr).not.toContain(EVIL);
    }
    expect(agentHits.requests.filter((r) => !r.path.includes('agent-card'))).toEqual([]);
  });
});
