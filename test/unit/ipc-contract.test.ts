/**
 * The IPC contract and its registry: malformed input is refused per channel, unknown channels too, errors keep codes;
 * outputs are typed (each service's declared result fits its channel's output schema, checked when this file
 * compiles), real answers pass those schemas, and the renderer reads them without `any`.
 */
import type { trustAgent } from '../../electron/core/agents/trust.js';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { CHANNELS, EVENT_CHANNELS, IPC_EVENT, IPC_INVOKE, isChannel, type Channel, type WireExchange } from '../../shared/ipc/contract.js';
import type { ClientTlsView } from '../../shared/client-tls-view.js';
import { createCore } from '../../electron/core/context.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { createRegistry } from '../../electron/core/ipc/registry.js';
import { isSecretKey } from '../../electron/core/security/redact.js';
import { json, minimalCard, startRawServer } from '../support/raw-server.js';
import type { addAgent, AgentView, removeAgent } from '../../electron/core/agents/registry.js';
import type { inspectAgentCard } from '../../electron/core/agents/extended-card.js';
import type { agentsHealth, refreshAllAgents } from '../../electron/core/agents/health.js';
import type { runConformance } from '../../electron/core/conformance/probe.js';
import type { SendResult } from '../../electron/core/messaging/send.js';
import type { StreamResult } from '../../electron/core/messaging/stream.js';
import type { previewRequests } from '../../electron/core/messaging/preview.js';
import type { getHistoryEntry, listHistory } from '../../electron/core/history/service.js';
import type { addMember, createGroup, deleteGroup, listGroups, removeMember, requireGroup, updateGroup } from '../../electron/core/collectives/groups.js';
import type { FanOutResult } from '../../electron/core/collectives/fan-out.js';
import type { BarrierResult } from '../../electron/core/collectives/barrier.js';
import type { GatherResult } from '../../electron/core/collectives/gather.js';
import type { ReduceResult } from '../../electron/core/collectives/reduce.js';
import type { RoundResult } from '../../electron/core/collectives/round.js';
import type { TaskListResult } from '../../electron/core/tasks/list.js';
import type { TaskView, WaitResult } from '../../electron/core/tasks/service.js';
import type { StoredTask } from '../../electron/core/store/repos/conversation.js';
import type { exportArtifacts, showArtifact } from '../../electron/core/artifacts/service.js';
import type { EventRow } from '../../electron/core/store/repos/events.js';
import type { ContextRow } from '../../electron/core/store/repos/contexts.js';
import type { contextThread } from '../../electron/core/contexts/thread.js';
import type { exportContext, listContextSummaries } from '../../electron/core/contexts/service.js';
import type { ReceiverStats } from '../../electron/core/webhook/receiver.js';
import type { addAuth, bindAuth, listAuth, removeAuth, updateAuth } from '../../electron/core/auth/service.js';
import type { setAgent } from '../../electron/core/agents/agent-set.js';
import type { fetchRawCard } from '../../electron/core/agents/raw-card.js';
import type { authStatus, loginAuth, logoutAuth } from '../../electron/core/auth/login.js';
import type { DemoHost } from '../../electron/core/ipc/demo-host.js';

/*
 * Compile-time: what each service the registry calls declares it returns fits the channel's output schema (so a
 * field renamed or retyped in the core breaks `npx tsc -p tsconfig.json`, not the GUI at run time). Fields a service
 * declares `unknown` are not compared; the runtime tests (here, test/e2e, test/integration/adapter-stdio) cover them.
 */
type SchemaInput<C extends Channel> = z.input<(typeof CHANNELS)[C]['output']>;
type Returned<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
/** A declared type with its `unknown` fields left open, and its interfaces as plain object types. */
type Declared<T> = unknown extends T ? any : T extends readonly (infer U)[] ? Declared<U>[] : T extends object ? { [K in keyof T]: Declared<T[K]> } : T;
type Wired<T> = T & { wire?: WireExchange[] };
type ServiceResults = {
  'app.info': { version: string; profile: string; profiles: string[]; config: string | null; state: string; database: string };
  'agents.list': { agents: AgentView[] };
  'agents.add': Returned<typeof addAgent>;
  'agents.remove': Returned<typeof removeAgent>;
  'agents.trust': Returned<typeof trustAgent>;
  'agents.set': Returned<typeof setAgent>;
  'agents.rawCard': Returned<typeof fetchRawCard>;
  'agents.inspect': Returned<typeof inspectAgentCard>;
  'agents.refreshAll': Returned<typeof refreshAllAgents>;
  'agents.health': { agents: Returned<typeof agentsHealth> };
  'agents.conformance': Returned<typeof runConformance>;
  'messages.send': Wired<SendResult>;
  'messages.stream': Wired<StreamResult>;
  'requests.preview': Returned<typeof previewRequests>;
  'history.list': Returned<typeof listHistory>;
  'history.get': Returned<typeof getHistoryEntry>;
  'groups.list': { groups: Returned<typeof listGroups> };
  'groups.show': Returned<typeof requireGroup>;
  'groups.create': Returned<typeof createGroup>;
  'groups.addMember': Returned<typeof addMember>;
  'groups.removeMember': Returned<typeof removeMember>;
  'groups.update': Returned<typeof updateGroup>;
  'groups.delete': Returned<typeof deleteGroup>;
  'collectives.bcast': FanOutResult;
  'collectives.barrier': BarrierResult;
  'collectives.gather': GatherResult;
  'collectives.reduce': ReduceResult;
  'collectives.round': RoundResult;
  // The channel lists the journal only (it has no `remote`): its rows are stored tasks.
  'tasks.list': Omit<TaskListResult, 'tasks'> & { tasks: StoredTask[] };
  'tasks.get': TaskView;
  'tasks.cancel': TaskView;
  'tasks.wait': WaitResult;
  'artifacts.show': Returned<typeof showArtifact>;
  'artifacts.export': Returned<typeof exportArtifacts>;
  'events.query': { events: EventRow[] };
  'contexts.list': { contexts: Returned<typeof listContextSummaries> };
  'contexts.create': ContextRow;
  'contexts.fork': ContextRow;
  'contexts.thread': Returned<typeof contextThread>;
  // Without `output` the export answers its document; its `schema` literal is widened to string by inference.
  'contexts.export': Omit<NonNullable<Returned<typeof exportContext>['document']>, 'schema'> & { schema: 'missive.context_export.v1' };
  // The host's own type leaves `last` unknown: the receiver's stats are what it answers.
  'webhook.start': ReceiverStats;
  'webhook.stop': ReceiverStats;
  'webhook.status': ReceiverStats;
  'auth.list': Returned<typeof listAuth>;
  'auth.add': Returned<typeof addAuth>;
  'auth.update': Returned<typeof updateAuth>;
  'auth.bind': Returned<typeof bindAuth>;
  'auth.remove': Returned<typeof removeAuth>;
  'auth.setSecret': { ok: true; session_only: boolean };
  'auth.deleteSecret': { ok: true };
  'auth.login': Returned<typeof loginAuth>;
  'auth.status': Returned<typeof authStatus>;
  'auth.logout': Returned<typeof logoutAuth>;
  'dialogs.chooseDirectory': { path: string | null };
  'demo.start': Returned<DemoHost['start']>;
};
/** Every channel has its service's result above. */
type EveryChannel<T extends Record<Channel, unknown>> = T;
export type CheckedChannels = EveryChannel<ServiceResults>;
/** The channels whose service result does not fit the output schema (see the error for which). */
type Mismatched = { [C in Channel]: Declared<ServiceResults[C]> extends SchemaInput<C> ? never : C }[Channel];
export const everyOutputFits: [Mismatched] extends [never] ? true : { mismatched: Mismatched } = true;
// The agent page reads the client certificate as the shared view type describes it.
export const clientTlsFits: ClientTlsView extends Declared<SchemaInput<'agents.inspect'>['client_tls']> ? true : false = true;

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
    expect(Object.keys(EVENT_CHANNELS).sort()).toEqual(['app.notice', 'auth.deviceCode', 'collectives.member', 'events.appended', 'messages.stream.event', 'webhook.arrival']);
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
    expect(await registry.invoke('shell.exec', {})).toEqual({ ok: false, error: expect.objectContaining({ code: 'missive::validation::unknown_channel', exit_code: 64 }) });
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
    expect(await registry.invoke('agents.add', { alias: 'nowhere' })).toMatchObject({ ok: false, error: { code: 'missive::validation::invalid_input', exit_code: 64 } });
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
    expect(await registry.invoke('agents.add', { alias: 'later', baseUrl: 'http://127.0.0.1:9' })).toMatchObject({ ok: true, data: { alias: 'later', card: { cached: false } } });
    expect(((await registry.invoke('agents.list', {})) as { data: { agents: Array<{ alias: string }> } }).data.agents.map((a) => a.alias)).toEqual(['later', 'local', 'split']);
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
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? sourcesUnder(join(dir, entry.name)) : /\.tsx?$/.test(entry.name) ? [join(dir, entry.name)] : []));

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
        .flatMap((line, i) => (/\bas\s+any\b|:\s*any\b|<\s*any\s*[,>]|\bany\s*\[\]|,\s*any\s*>/.test(line.replace(/\/\/.*$|\/\*.*?\*\/|^\s*\*.*$/g, '')) ? [`${relative(root, file)}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(sourcesUnder(root).length).toBeGreaterThan(10);
    expect(found).toEqual([]);
  });
});
