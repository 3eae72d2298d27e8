/** libpq's .pgpass and pg_service.conf as missive reads them (store/postgres/pgpass.ts, libpq-service.ts): the edge cases. */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pgpassPassword, pgpassPath, readPgpass } from '../../electron/core/store/postgres/pgpass.js';
import { parseServiceFile, readService, serviceFiles } from '../../electron/core/store/postgres/libpq-service.js';
import { resolveTarget, targetAddress } from '../../electron/core/store/postgres/libpq-target.js';

const target = { host: 'db.example', port: 5432, database: 'team', user: 'alice' };

describe('.pgpass', () => {
  it('the first matching line wins; * matches any field', () => {
    const text = ['db.example:5432:other:alice:no', '*:5432:team:*:first', 'db.example:5432:team:alice:second'].join('\n');
    expect(pgpassPassword(text, target)).toBe('first');
  });

  it('short lines (*:*:*:*:pw) count, # lines are comments, CRLF is fine', () => {
    expect(pgpassPassword('#*:*:*:*:commented\r\n*:*:*:*:pw\r\n', target)).toBe('pw');
  });

  it('\\: and \\\\ escape a colon and a backslash, in any field and the password', () => {
    expect(pgpassPassword('db.example:5432:team:al\\:ice:p\\:w\\\\d:ignored', { ...target, user: 'al:ice' })).toBe('p:w\\d');
    expect(pgpassPassword('db.example:5432:te\\\\am:alice:x', { ...target, database: 'te\\am' })).toBe('x');
    expect(pgpassPassword('db.example:5432:team:alice:x', { ...target, user: 'alic' })).toBeUndefined();
  });

  it('a unix socket is matched as localhost; the port as text; an empty password is none', () => {
    expect(pgpassPassword('localhost:6000:team:alice:sock', { ...target, host: '/var/run/postgresql', port: 6000 })).toBe('sock');
    expect(pgpassPassword('db.example:6000:team:alice:x', target)).toBeUndefined();
    expect(pgpassPassword('*:*:*:*:', target)).toBeUndefined();
  });

  it('PGPASSFILE, a service passfile, else ~/.pgpass (%APPDATA% on Windows)', () => {
    expect(pgpassPath({ HOME: '/home/a' }, undefined, 'linux')).toBe('/home/a/.pgpass');
    expect(pgpassPath({ HOME: '/home/a', PGPASSFILE: '/p' }, undefined, 'linux')).toBe('/p');
    expect(pgpassPath({ PGPASSFILE: '/p' }, '/svc', 'linux')).toBe('/svc');
    expect(pgpassPath({ APPDATA: 'C:\\AppData' }, undefined, 'win32')).toBe(join('C:\\AppData', 'postgresql', 'pgpass.conf'));
  });

  describe('the file', () => {
    let dir: string;
    beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'missive-pgpass-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('read when 0600; ignored with a warning when others can read it; nothing when missing', () => {
      const path = join(dir, 'pgpass');
      writeFileSync(path, '*:*:*:*:pw\n');
      chmodSync(path, 0o600);
      const warnings: string[] = [];
      expect(readPgpass(path, target, (m) => warnings.push(m))).toBe('pw');
      chmodSync(path, 0o640);
      expect(readPgpass(path, target, (m) => warnings.push(m))).toBeUndefined();
      expect(warnings).toEqual([
        `password file "${path}" has group or world access (mode 0640); permissions should be u=rw (0600) or less: ignored, as libpq does`,
      ]);
      expect(readPgpass(join(dir, 'missing'), target, (m) => warnings.push(m))).toBeUndefined();
      expect(readPgpass(dir, target, (m) => warnings.push(m))).toBeUndefined();
      expect(warnings[1]).toContain('is a folder');
    });
  });
});

describe('pg_service.conf', () => {
  const text = [
    '# services',
    '[other]',
    'host=elsewhere',
    'bad line in another service',
    '',
    '  [team]  ',
    ' host = db.example ',
    'port=6543',
    'password=a#b;c"d"',
    '[next]',
    'host=nope',
  ].join('\n');

  it('reads only the service asked for, values as written (no inline comments, quotes kept), blanks trimmed', () => {
    expect(parseServiceFile(text, 'team', 'f')).toEqual({ host: 'db.example', port: '6543', password: 'a#b;c"d"' });
    expect(parseServiceFile(text, 'missing', 'f')).toBeUndefined();
    expect(parseServiceFile('[a.b]\nhost=x\n', 'a.b', 'f')).toEqual({ host: 'x' });
  });

  it('a line that is not key=value, or a nested service, in the service asked for is an error naming file and line', () => {
    expect(() => parseServiceFile('[team]\nhost\n', 'team', '/etc/x.conf')).toThrow(/service file \/etc\/x\.conf, line 2: expected key=value/);
    expect(() => parseServiceFile('[team]\nservice=other\n', 'team', 'f')).toThrow(/nested service/);
  });

  describe('lookup', () => {
    let dir: string;
    beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'missive-service-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('PGSERVICEFILE (else ~/.pg_service.conf) first, then PGSYSCONFDIR/pg_service.conf; neither: an error naming both', () => {
      writeFileSync(join(dir, 'user.conf'), '[mine]\nhost=u\n');
      writeFileSync(join(dir, 'pg_service.conf'), '[mine]\nhost=s\n[shared]\nhost=s\n');
      const env = { PGSERVICEFILE: join(dir, 'user.conf'), PGSYSCONFDIR: dir };
      expect(serviceFiles({ HOME: '/home/a', PGSYSCONFDIR: '/etc/pg' })).toEqual(['/home/a/.pg_service.conf', '/etc/pg/pg_service.conf']);
      expect(readService('mine', env, 'PGSERVICE').values.host).toBe('u');
      expect(readService('shared', env, 'PGSERVICE')).toMatchObject({ file: join(dir, 'pg_service.conf'), values: { host: 's' } });
      expect(() => readService('none', env, 'PGSERVICE')).toThrow(
        `the PostgreSQL service "none" (from PGSERVICE) is defined in none of ${join(dir, 'user.conf')}, ${join(dir, 'pg_service.conf')}`,
      );
    });

    it("the URL's values win over the service's, which win over the PG* variables", () => {
      writeFileSync(join(dir, 's.conf'), '[team]\nhost=svc-host\nport=6000\ndbname=svc_db\nuser=svc_user\nsslmode=require\nhostaddr=10.0.0.1\n');
      const env = { PGSERVICEFILE: join(dir, 's.conf'), PGSYSCONFDIR: dir, PGHOST: 'env-host', PGUSER: 'env_user', PGPORT: '7000', PGCONNECT_TIMEOUT: '3' };
      const warnings: string[] = [];
      const t = resolveTarget('postgres:///url_db?service=team&user=url_user', env, (m) => warnings.push(m), 'URL');
      expect(t).toMatchObject({ host: 'svc-host', port: 6000, user: 'url_user', database: 'url_db' });
      expect(new URL(t.url).searchParams.get('sslmode')).toBe('require');
      expect(new URL(t.url).searchParams.get('connect_timeout')).toBe('3');
      expect(new URL(t.url).searchParams.has('service')).toBe(false);
      expect(warnings).toEqual([`the PostgreSQL service "team" (${join(dir, 's.conf')}) sets hostaddr, which missive does not use: ignored`]);
      const plain = resolveTarget('postgres://', { PGHOST: '/run/pg', PGPORT: '5433', PGUSER: 'u' }, () => undefined, 'URL');
      expect(plain).toMatchObject({ host: '/run/pg', port: 5433, user: 'u', database: 'u' });
      expect(targetAddress(plain)).toBe('the socket /run/pg/.s.PGSQL.5433');
      expect(targetAddress({ host: '::1', port: 5432 })).toBe('[::1]:5432');
      expect(() => resolveTarget('postgres://h/db', { PGPORT: 'x' }, () => undefined, 'URL')).toThrow(/port "x" is not a port number/);
    });
  });
});
