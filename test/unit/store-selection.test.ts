/** The store URL as text (redacted display, the secrets it holds) and selectStore's rules, without any server. */
import { describe, expect, it } from 'vitest';
import { redactStoreUrl, storeUrlIssue, storeUrlSecrets, urlHasPassword } from '../../electron/core/config/store-url.js';
import { resolveConfig } from '../../electron/core/config/load.js';
import type { ConfigFile } from '../../electron/core/config/schema.js';
import { selectStore } from '../../electron/core/store/selection.js';

const config = (file: ConfigFile, profile?: string) =>
  resolveConfig(file, { kind: 'home', path: '/home/me/.config/missive/config.toml', searched: [] }, profile);

describe('the store URL as text', () => {
  it('prints without its password, wherever the URL holds one', () => {
    expect(redactStoreUrl('postgres://team:s3cret@db.example:5432/missive?sslmode=verify-full')).toBe(
      'postgres://team:***@db.example:5432/missive?sslmode=verify-full',
    );
    expect(redactStoreUrl('postgresql://team@db.example/missive?password=s3cret&sslpassword=k3y')).toBe(
      'postgresql://team@db.example/missive?password=***&sslpassword=***',
    );
    expect(redactStoreUrl('postgres://db.example/missive')).toBe('postgres://db.example/missive');
    expect(redactStoreUrl('not a url s3cret')).toBe('<unparsable URL>');
  });

  it('never prints a URL the parser misreads (an unencoded #, /, ? or @ in the password) whole: its scheme and host only', () => {
    expect(redactStoreUrl('postgres://team:1234#hunter2-pw@db.example:5432/missive')).toBe('postgres://***@db.example:5432');
    expect(redactStoreUrl('postgres://team:12/hunter2-pw@db.example/missive')).toBe('postgres://***@db.example');
    expect(redactStoreUrl('postgresql://team:12?hunter2-pw@db.example/missive')).toBe('postgresql://***@db.example');
    expect(redactStoreUrl('postgres://team:pa#hunter2-pw@db example/missive')).toBe('<unparsable URL>');
    for (const url of [
      'postgres://team:1234#hunter2-pw@db.example/missive',
      'postgres://team:12/hunter2-pw@db.example/missive',
      'postgres://team:pa#ss@db.example/missive',
    ]) {
      expect(storeUrlIssue(url)).toMatch(/percent-encoded \(%23, %2F, %3F, %40\)/);
    }
    expect(storeUrlSecrets('postgres://team:1234#hunter2-pw@db.example/missive')).toEqual(['1234#hunter2-pw']);
  });

  it('finds a password with the URL parser, with or without a user before it', () => {
    for (const url of [
      'postgres://:hunter2@db.example/missive',
      'postgres://team:hunter2@db.example/missive',
      'https://db.example/?password=hunter2',
      'postgres://team:1234#hunter2@db.example/missive',
    ]) {
      expect(urlHasPassword(url), url).toBe(true);
    }
    for (const text of ['postgres://team@db.example/missive', 'postgres://:@db.example/missive', 'not a url', 'https://example.com/docs#part'])
      expect(urlHasPassword(text), text).toBe(false);
  });

  it('lists the secrets as written and decoded, for outputs to scrub', () => {
    expect(storeUrlSecrets('postgres://team:p%40ss%2Fw0rd@db.example/missive?password=other-one')).toEqual(['p%40ss%2Fw0rd', 'p@ss/w0rd', 'other-one']);
    expect(storeUrlSecrets(undefined)).toEqual([]);
  });

  it('accepts postgres:// and postgresql:// only', () => {
    expect(storeUrlIssue('postgres://db.example/missive')).toBeNull();
    expect(storeUrlIssue('postgresql://db.example/missive')).toBeNull();
    expect(storeUrlIssue('mysql://root:s3cret@db.example/app')).toMatch(/must be a postgres:\/\//);
    expect(storeUrlIssue('mysql://root:s3cret@db.example/app')).not.toContain('s3cret');
    expect(storeUrlIssue('s3cret')).toMatch(/not a URL/);
  });
});

describe('selectStore', () => {
  const FILE = 'postgres://team@db-file.example/missive';
  const ENV = 'postgres://team@db-env.example/missive';
  const FLAG = 'postgres://team@db-flag.example/missive';

  it('--store, then MISSIVE_STORE_URL, then [store] url; none (or empty ones) is SQLite', () => {
    const c = config({ store: { url: FILE } });
    expect(selectStore({ flag: FLAG, env: { MISSIVE_STORE_URL: ENV }, config: c, profile: 'default' })).toMatchObject({
      kind: 'postgres',
      url: FLAG,
      from: '--store',
    });
    expect(selectStore({ env: { MISSIVE_STORE_URL: ENV }, config: c, profile: 'default' })).toMatchObject({ url: ENV, from: 'MISSIVE_STORE_URL' });
    expect(selectStore({ flag: '', env: { MISSIVE_STORE_URL: '' }, config: c, profile: 'default' })).toMatchObject({ url: FILE, from: '[store] url' });
    expect(selectStore({ env: {}, config: config({}), profile: 'default' })).toEqual({ kind: 'sqlite' });
    expect(selectStore({ env: {}, config: config({ store: { url: '', schema: 'kept' } }), profile: 'default' })).toEqual({ kind: 'sqlite' });
  });

  it('the schema: [store] schema, else missive_<profile> with - and . as _', () => {
    const file: ConfigFile = {
      store: { url: FILE },
      profiles: { 'night-shift': {}, 'eu.west': {}, ops: { store: { schema: 'ops_rows', password_env: 'OPS_PG' } } },
    };
    expect(selectStore({ env: {}, config: config(file, 'night-shift'), profile: 'night-shift' })).toMatchObject({ schema: 'missive_night_shift' });
    expect(selectStore({ env: {}, config: config(file, 'eu.west'), profile: 'eu.west' })).toMatchObject({ schema: 'missive_eu_west' });
    expect(selectStore({ env: {}, config: config(file, 'ops'), profile: 'ops' })).toMatchObject({ schema: 'ops_rows', passwordEnv: 'OPS_PG' });
  });

  it('refuses a schema two profiles would share on one server, and a derived name PostgreSQL would truncate', () => {
    const shared: ConfigFile = { store: { url: FILE, schema: 'team' }, profiles: { work: {} } };
    expect(() => selectStore({ env: {}, config: config(shared), profile: 'default' })).toThrow(
      expect.objectContaining({ code: 'missive::config::store_schema_shared', exitCode: 78 }),
    );
    const long = 'p'.repeat(60);
    expect(() => selectStore({ env: {}, config: config({ store: { url: FILE }, profiles: { [long]: {} } }, long), profile: long })).toThrow(
      expect.objectContaining({ code: 'missive::config::invalid_store_schema' }),
    );
  });

  it('a profile that names its own password source drops the top-level one', () => {
    const file: ConfigFile = {
      store: { url: FILE, password_env: 'TEAM_PG' },
      auth_refs: { pg: { kind: 'env', env: 'PG_SECRET' } },
      profiles: { ops: { store: { password_ref: 'pg' } } },
    };
    expect(selectStore({ env: {}, config: config(file, 'ops'), profile: 'ops' })).toMatchObject({ passwordRef: 'pg', passwordEnv: undefined });
    expect(selectStore({ env: {}, config: config(file), profile: 'default' })).toMatchObject({ passwordEnv: 'TEAM_PG', passwordRef: undefined });
  });
});

describe('docs/config.md', () => {
  it('the [store] example loads as written', async () => {
    const { readFileSync } = await import('node:fs');
    const { parseConfigText } = await import('../../electron/core/config/load.js');
    const text = readFileSync(new URL('../../docs/config.md', import.meta.url), 'utf8');
    const section = text.slice(text.indexOf('## The PostgreSQL store: `[store]`'));
    const block = /```toml\n([\s\S]*?)```/.exec(section)![1]!;
    const file = parseConfigText(block, 'docs/config.md');
    expect(file.store).toMatchObject({ password_env: 'MISSIVE_PG_PASSWORD' });
    expect(selectStore({ env: {}, config: config(file, 'ops'), profile: 'ops' })).toMatchObject({
      kind: 'postgres',
      schema: 'ops',
      passwordEnv: 'MISSIVE_PG_PASSWORD',
    });
  });
});
