/** `doctor` reports what it sees and changes nothing; its exit code is that of the first failing check. */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { SCHEMA_VERSION } from '../../electron/core/store/db.js';

let box: Sandbox;
beforeEach(() => (box = sandbox()));
afterEach(() => box.dispose());

const check = (data: { checks: Array<{ name: string }> }, name: string) => data.checks.find((c) => c.name === name) as any;

describe('doctor', () => {
  it('does not create the database or any state on a fresh machine', async () => {
    const res = await box.run(['doctor', '--json']);
    expect(res.code).toBe(0);
    const data = res.json().data;
    expect(check(data, 'config.discovery_validation').details.source).toBe('defaults');
    expect(check(data, 'store.sqlite_migrations').status).toBe('warn');
    expect(existsSync(join(box.home, 'state/profiles/default/missive.sqlite3'))).toBe(false);
  });

  it('fails with the transport code of an unreachable agent and masks auth ref names', async () => {
    mkdirSync(join(box.home, 'config'), { recursive: true });
    writeFileSync(join(box.home, 'config/config.toml'), '[auth_refs.prodtoken]\nkind = "env"\nenv = "PROD_TOKEN"\n[agents.down]\nbase_url = "http://127.0.0.1:9"\nauth_ref = "prodtoken"\n');
    const res = await box.run(['doctor', '--json'], { env: { PROD_TOKEN: 'doctor-secret-123' } });
    expect(res.code).toBe(69);
    const endpoint = check(res.json().data, 'a2a.endpoint.down');
    expect(endpoint).toMatchObject({ status: 'fail', exit_code: 69 });
    expect(endpoint.details.auth_ref).toBe('pr***');
    expect(res.stdout).not.toContain('doctor-secret-123');
  });

  it('reports the schema version of an existing store', async () => {
    await box.run(['agent', 'list']);
    const data = (await box.run(['doctor', '--json'])).json().data;
    expect(check(data, 'store.sqlite_migrations')).toMatchObject({ status: 'ok', details: { schema_version: SCHEMA_VERSION } });
  });

  it('exits 78 for an unknown profile', async () => {
    const res = await box.run(['doctor', '--profile', 'ghost']);
    expect(res.code).toBe(78);
    expect(res.stderr).toMatch(/profile "ghost" is not defined/);
  });
});
