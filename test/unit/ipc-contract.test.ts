/**
 * The IPC contract and its registry: malformed input is refused per channel, unknown channels too, errors keep codes;
 * real answers pass the output schemas, and the renderer reads them without `any`. That each handler's answer fits its
 * channel's output schema is checked where the handler table is typed (electron/core/ipc/channel-handlers.ts; the
 * proof is test/unit/ipc-handler-types.test.ts).
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { CHANNELS, EVENT_CHANNELS, IPC_EVENT, IPC_INVOKE, isChannel } from '../../shared/ipc/contract.js';
import { createCore } from '../../electron/core/context.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { createRegistry } from '../../electron/core/ipc/registry.js';
import { isSecretKey } from '../../electron/core/security/redact.js';
import { json, minimalCard, startRawServer } from '../support/raw-server.js';

const home = mkdtempSync(join(tmpdir(), 'missive-ipc-'));
const secrets = createMemorySecretStore();
const core = createCore({ env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH }, cwd: home, secrets });
const emitted: Array<[string, unknown]> = [];
const registry = createRegistry({ core, cwd: home, emit: (c, p) => void emitted.push([c, p]) });
afterAll(async () => {
  await registry.dispose();
  core.close();
});

describe('IPC contract', () => {
  it('rejects unknown keys and wrong types on every channel', () => {
    for (const [name, spec] of Object.entries(CHANNELS)) {
      expect(spec.input.safeParse({ unexpected: true }).success, `${name} accepted an unknown key`).toBe(false);
      expect(spec.input.safeParse('a string').success, `${name} accepted a string`).toBe(false);
      expect(spec.input.safeParse([]).success, `${name} accepted an array`).toBe(false);
    }
    expect(CHANNELS['agents.add'].input.safeParse({ alias: 'a', baseUrl: 42 }).success).toBe(false);
    expect(CHANNELS['messages.send'].input.safeParse({ agent: 'a', inputs: { text: 1 } }).success).toBe(false);
    expect(CHANNELS['collectives.bcast'].input.safeParse({ group: 'g', inputs: {}, maxConcurrency: 0 }).success).toBe(false);
    expect(CHANNELS['auth.setSecret'].input.safeParse({ name: 'n', secret: '' }).success).toBe(false);
  });

  it('names its event channels and transport in one place, and the preload uses the same transport names', () => {
    expect(Object.keys(EVENT_CHANNELS).sort()).toEqual([
      'app.notice',
      'auth.deviceCode',
      'collectives.member',
      'events.appended',
      'messages.stream.event',
      'webhook.arrival',
    ]);
    const preload = readFileSync(join(process.cwd(), 'electron/preload/index.cts'), 'utf8');
    expect(preload).toContain(`'${IPC_INVOKE}'`);
    expect(preload).toContain(`'${IPC_EVENT}'`);
    for (const channel of Object.keys(CHANNELS)) expect(preload).not.toContain(`'${channel}'`);
    expect(isChannel('agents.list')).toBe(true);
    expect(isChannel('toString')).toBe(false);
  });
});

describe('handler registry', () => {
  it('refuses unknown channels and malformed input with usage errors', async () => {
    expect(await registry.invoke('shell.exec', {})).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'missive::validation::unknown_channel', exit_code: 64 }),
    });
    const bad = await registry.invoke('agents.add', { alias: 'x', baseUrl: 5 });
    expect(bad).toMatchObject({ ok: false, error: { code: 'missive::validation::invalid_input', category: 'validation' } });
    expect(registry.channels).toEqual(Object.keys(CHANNELS));
  });

  it('answers through the same services as the CLI, with the CLI error report on failure', async () => {
    expect(await registry.invoke('agents.list', {})).toEqual({ ok: true, data: { agents: [] } });
    const bad = await registry.invoke('agents.add', { alias: 'x', baseUrl: 'ftp://nope' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'missive::validation::invalid_url', exit_code: 64 } });
    // With fetchCard (the GUI's Register) the card comes first: a card that cannot be fetched registers nothing.
    const down = await registry.invoke('agents.add', { alias: 'down', baseUrl: 'http://127.0.0.1:9', fetchCard: true });
    expect(down).toMatchObject({ ok: false, error: { category: 'transport', exit_code: 69 } });
    expect(await registry.invoke('agents.add', { alias: 'nowhere' })).toMatchObject({
      ok: false,
      error: { code: 'missive::validation::invalid_input', exit_code: 64 },
    });
    const peer = await startRawServer();
    peer.route('/.well-known/agent-card.json', (_req, res) => json(res, 200, minimalCard(peer.url)));
    try {
      const added = await registry.invoke('agents.add', { alias: 'local', baseUrl: peer.url, fetchCard: true });
      expect(added).toMatchObject({ ok: true, data: { alias: 'local', base_url: peer.url, card: { cached: true, name: 'Raw Agent' } } });
      const trusting = await registry.invoke('agents.add', { alias: 'split', baseUrl: peer.url, trustedOrigins: ['http://127.0.0.1:50051'] });
      expect(trusting).toMatchObject({ ok: true, data: { trusted_origins: ['http://127.0.0.1:50051'] } });
    } finally {
      await peer.close();
    }
    // Without fetchCard (automation, like `missive agent add`) nothing is fetched: an agent that is down registers.
    expect(await registry.invoke('agents.add', { alias: 'later', baseUrl: 'http://127.0.0.1:9' })).toMatchObject({
      ok: true,
      data: { alias: 'later', card: { cached: false } },
    });
    expect(((await registry.invoke('agents.list', {})) as { data: { agents: Array<{ alias: string }> } }).data.agents.map((a) => a.alias)).toEqual([
      'later',
      'local',
      'split',
    ]);
    const path = await registry.invoke('agents.add', { alias: 'split2', baseUrl: 'http://127.0.0.1:9', trustedOrigins: ['http://127.0.0.1:50051/rpc'] });
    expect(path).toMatchObject({ ok: false, error: { code: 'missive::validation::invalid_origin', exit_code: 64 } });
    expect(await registry.invoke('dialogs.chooseDirectory', {})).toEqual({ ok: true, data: { path: null } });
  });

  it('stores a secret in the keyring and never returns it', async () => {
    expect((await registry.invoke('agents.list', {})).ok).toBe(true);
    const { addAuth } = await import('../../electron/core/auth/service.js');
    await addAuth(core, { name: 'vault', keyringService: 'missive-test', keyringAccount: 'vault' });
    const set = await registry.invoke('auth.setSecret', { name: 'vault', secret: 'gui-typed-secret-123' });
    // The test's store is memory: the secret lasts for this session only, and the answer says so.
    expect(set).toEqual({ ok: true, data: { ok: true, session_only: true } });
    const listed = await registry.invoke('auth.list', {});
    expect(JSON.stringify(listed)).not.toContain('gui-typed-secret-123');
    expect(JSON.stringify(emitted)).not.toContain('gui-typed-secret-123');
    expect(await secrets.get('missive-test', 'vault')).toBe('gui-typed-secret-123');
  });
});

/** Every property name of a JSON Schema, at any depth. */
function propertyNames(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) propertyNames(item, into);
  else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && value && typeof value === 'object') for (const name of Object.keys(value)) into.add(name);
      propertyNames(value, into);
    }
  }
  return into;
}

/** Every source file under a directory. */
const sourcesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourcesUnder(join(dir, entry.name)) : /\.tsx?$/.test(entry.name) ? [join(dir, entry.name)] : [],
  );

describe('typed outputs', () => {
  it('names no typed output field like a secret: the registry would redact its value and then refuse the output', () => {
    for (const [name, spec] of Object.entries(CHANNELS)) {
      const fields = [...propertyNames(z.toJSONSchema(spec.output, { io: 'output', unrepresentable: 'any' }))];
      expect(fields.filter(isSecretKey), `${name} types a secret-named field`).toEqual([]);
    }
  });

  it('lets the renderer read every answer typed: no `any` in renderer/src', () => {
    const root = join(process.cwd(), 'renderer/src');
    const found = sourcesUnder(root).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          /\bas\s+any\b|:\s*any\b|<\s*any\s*[,>]|\bany\s*\[\]|,\s*any\s*>/.test(line.replace(/\/\/.*$|\/\*.*?\*\/|^\s*\*.*$/g, ''))
            ? [`${relative(root, file)}:${i + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(sourcesUnder(root).length).toBeGreaterThan(10);
    expect(found).toEqual([]);
  });
});
