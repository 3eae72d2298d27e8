/**
 * Free text with a NUL character (U+0000), given through the IPC contract (the desktop app, the web console, the
 * adapters: the command line cannot carry one): refused alike on both stores, before anything is written, as a usage
 * error naming the field. PostgreSQL's text cannot hold it at all; SQLite used to keep it.
 */
import { describe, expect, it } from 'vitest';
import type { Registry } from '../../electron/core/ipc/registry.js';
import { STORES, registryOnStoreEach } from '../support/stores.js';

let registry: Registry;

const refused = (field: string) => ({
  ok: false,
  error: { code: 'missive::validation::invalid_text', exit_code: 64, message: expect.stringContaining(`${field} contains a NUL character`) },
});

describe.each(STORES)('text with a NUL character (%s store)', (kind) => {
  registryOnStoreEach(kind, (opened) => ({ registry } = opened));

  it("is refused in an agent's notes, a group's notes and an auth ref's keyring coordinates, and nothing is stored", async () => {
    expect(await registry.invoke('agents.add', { alias: 'nul', baseUrl: 'http://127.0.0.1:9', notes: 'a\u0000b' })).toMatchObject(refused('--notes'));
    expect(await registry.invoke('agents.list', {})).toMatchObject({ ok: true, data: { agents: [] } });

    expect(await registry.invoke('groups.create', { group: 'g', members: [], notes: 'x\u0000' })).toMatchObject(refused('--notes'));
    expect(await registry.invoke('groups.list', {})).toMatchObject({ ok: true, data: { groups: [] } });
    expect((await registry.invoke('groups.create', { group: 'g', members: [], notes: 'first' })).ok).toBe(true);
    expect(await registry.invoke('groups.update', { group: 'g', notes: '\u0000' })).toMatchObject(refused('--notes'));
    expect(await registry.invoke('groups.show', { group: 'g' })).toMatchObject({ ok: true, data: { notes: 'first' } });

    expect(await registry.invoke('auth.add', { name: 'ref', keyringService: 'svc\u0000', keyringAccount: 'me' })).toMatchObject(refused('--keyring-service'));
    expect(await registry.invoke('auth.list', {})).toMatchObject({ ok: true, data: { auth_refs: [] } });

    // Line breaks and tabs are ordinary notes.
    const multiline = await registry.invoke('agents.add', { alias: 'ok', baseUrl: 'http://127.0.0.1:9', notes: 'line one\n\tline two' });
    expect(multiline).toMatchObject({ ok: true, data: { notes: 'line one\n\tline two' } });
  });
});
