/**
 * `missive adapter stdio` as another program sees it: `node bin/missive.js adapter stdio` as a child process, NDJSON
 * frames in and out, against real SDK agents on 127.0.0.1. Every channel of the IPC contract is driven with an
 * assertion on its reply (the last test checks that the set exercised is exactly `Object.keys(CHANNELS)`), malformed
 * frames get error frames and the loop goes on, stdout carries frames only, several frames run at once, single-shot
 * exits with its frame's exit code, and a header secret never reaches stdout.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS, type Channel } from '../../shared/ipc/contract.js';
import type { EmbeddedAgent } from '../../electron/core/demo/embedded-agent.js';
import { MAX_FRAME_BYTES } from '../../electron/core/adapters/frames.js';
import { MAX_IN_FLIGHT } from '../../electron/core/adapters/stdio.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { startAgents } from '../support/agents.js';
import { json, startRawServer, type RawServer } from '../support/raw-server.js';
import { startTokenServer, type TokenServer } from '../support/auth-flow-peers.js';

const HDR_SECRET = 'hdr-secret-5e1f0a9c7b3d';
const KR_SECRET = 'kr-secret-8c2e4a6f1d0b';
const VERSION = JSON.parse(readFileSync('package.json', 'utf8')).version as string;

type Frame = Record<string, any>;

/** One adapter child: every stdout line is kept (and must parse as a frame); replies are awaited by id. */
class Adapter {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  readonly frames: Frame[] = [];
  readonly unparsed: string[] = [];
  stderr = '';
  readonly exited: Promise<number>;
  private readonly waiters: Array<{ id: unknown; resolve: (index: number) => void }> = [];
  private next = 0;

  constructor(box: Sandbox, args: string[] = []) {
    this.child = spawn(process.execPath, ['bin/missive.js', 'adapter', 'stdio', ...args], { cwd: process.cwd(), env: box.env });
    this.child.stderr.on('data', (d) => void (this.stderr += d));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      this.lines.push(line);
      let frame: Frame;
      try {
        frame = JSON.parse(line);
      } catch {
        this.unparsed.push(line);
        return;
      }
      const index = this.frames.push(frame) - 1;
      if (!('ok' in frame)) return;
      const at = this.waiters.findIndex((w) => w.id === frame.id);
      if (at !== -1) this.waiters.splice(at, 1)[0]!.resolve(index);
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code ?? -1)));
  }

  get stdout(): string {
    return this.lines.join('\n');
  }

  /** Writes raw text to stdin (one or more frames, or anything else). */
  write(text: string): void {
    this.child.stdin.write(text);
  }

  /** The index (in `frames`) of the next reply with this id; fails instead of hanging when none comes in 30 s. */
  reply(id: unknown): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply with id ${JSON.stringify(id)}; stderr: ${this.stderr}`)), 30_000);
      this.waiters.push({ id, resolve: (i) => (clearTimeout(timer), resolve(i)) });
    });
  }

  /** Sends raw text and waits for the reply with `id` (null for a frame whose id is unknown). */
  async raw(text: string, id: unknown = null): Promise<Frame> {
    const waiting = this.reply(id);
    this.write(text);
    return this.frames[await waiting]!;
  }

  /** Calls a channel; answers the reply and the event frames carrying its id that came before it. */
  async call(channel: string, input: unknown = {}): Promise<{ reply: Frame; events: Frame[] }> {
    const id = `r${++this.next}`;
    if (Object.hasOwn(CHANNELS, channel)) exercised.add(channel as Channel);
    const waiting = this.reply(id);
    this.write(`${JSON.stringify({ id, channel, input })}\n`);
    const index = await waiting;
    return { reply: this.frames[index]!, events: this.frames.slice(0, index).filter((f) => 'event' in f && f.id === id) };
  }

  /** The value of a successful call (fails the test with the error report otherwise). */
  async ok(channel: Channel, input: unknown = {}): Promise<any> {
    const { reply } = await this.call(channel, input);
    expect(reply, `${channel} failed: ${JSON.stringify(reply.error)}`).toMatchObject({ ok: true });
    return reply.value;
  }

  /** The error report of a call that must fail. */
  async fails(channel: Channel, input: unknown = {}): Promise<any> {
    const { reply } = await this.call(channel, input);
    expect(reply.ok, `${channel} unexpectedly succeeded`).toBe(false);
    return reply.error;
  }

  async close(): Promise<number> {
    this.child.stdin.end();
    return this.exited;
  }
}

const exercised = new Set<Channel>();
let box: Sandbox;
let fleet: Awaited<ReturnType<typeof startAgents>>;
let agents: Record<string, EmbeddedAgent>;
let adapter: Adapter;
let hostile: RawServer;
let idp: TokenServer;
const krAccount = `adapter-${randomUUID()}`;

beforeAll(async () => {
  fleet = await startAgents({
    echo: { behaviour: 'echo', streaming: true },
    task: { behaviour: 'task' },
    chunks: { behaviour: 'chunks', streaming: true, chunks: 3 },
    slow: { behaviour: 'slow', delayMs: 60_000 },
    secure: { behaviour: 'echo' },
  });
  agents = fleet.agents;
  // A hostile peer that echoes the credential it was sent back in its error body.
  idp = await startTokenServer({ clientId: 'cli-app', clientSecret: null, pendingPolls: 1, deviceOutcome: 'manual' });
  hostile = await startRawServer();
  hostile.route('/.well-known/agent-card.json', (req, res) => json(res, 500, { error: { message: `bad key ${req.headers['x-api-key']}` } }));
  const dbus = process.env.DBUS_SESSION_BUS_ADDRESS;
  box = sandbox({ HDR_TOKEN: HDR_SECRET, ...(dbus ? { DBUS_SESSION_BUS_ADDRESS: dbus } : {}) });
  // Auth refs are set up the way a user would, with the CLI; the adapter then uses them.
  expect((await box.run(['auth', 'add', 'hdr', '--env', 'HDR_TOKEN', '--header-name', 'X-Api-Key', '--scheme', 'none'])).code).toBe(0);
  expect(
    (
      await box.run([
        'auth',
        'add',
        'dc',
        '--env',
        'DC_CLIENT_SECRET',
        '--flow',
        'oauth2_device_code',
        '--issuer',
        idp.url,
        '--client-id',
        'cli-app',
        '--scope',
        'a2a.read',
      ])
    ).code,
  ).toBe(0);
  expect((await box.run(['auth', 'add', 'kr', '--keyring-service', 'missive-test', '--keyring-account', krAccount])).code).toBe(0);
  adapter = new Adapter(box);
});

afterAll(async () => {
  if (adapter) {
    adapter.child.stdin.end();
    await adapter.exited;
  }
  await fleet?.close();
  await hostile?.close();
  await idp?.close();
  box?.dispose();
});

describe('adapter stdio: every channel of the contract', () => {
  it('answers app.info and manages agents (agents.*)', async () => {
    const info = await adapter.ok('app.info');
    expect(info).toMatchObject({ version: VERSION, profile: 'default' });
    expect(info.database.startsWith(box.home)).toBe(true);

    for (const alias of ['echo', 'task', 'chunks', 'slow'])
      expect(await adapter.ok('agents.add', { alias, baseUrl: agents[alias]!.baseUrl })).toMatchObject({ alias, base_url: agents[alias]!.baseUrl });
    expect(await adapter.ok('agents.add', { alias: 'secure', baseUrl: agents.secure!.baseUrl, authRef: 'hdr', tags: ['locked'] })).toMatchObject({
      alias: 'secure',
      auth_ref: 'hdr',
      tags: ['locked'],
    });
    const listed = await adapter.ok('agents.list');
    expect(listed.agents.map((a: Frame) => a.alias).sort()).toEqual(['chunks', 'echo', 'secure', 'slow', 'task']);

    const inspected = await adapter.ok('agents.inspect', { alias: 'echo', refresh: true });
    expect(inspected.card.name).toBe('echo');
    expect(inspected.selected_interface.url.startsWith(agents.echo!.baseUrl)).toBe(true);
    expect(inspected.negotiation.ok).toBe(true);

    const refreshed = await adapter.ok('agents.refreshAll');
    expect(refreshed.agents.map((a: Frame) => [a.alias, a.ok])).toEqual([
      ['chunks', true],
      ['echo', true],
      ['secure', true],
      ['slow', true],
      ['task', true],
    ]);
    const health = await adapter.ok('agents.health');
    expect(health.agents.find((a: Frame) => a.alias === 'echo')).toMatchObject({ reachable: true, last_error: null });

    const conformance = await adapter.ok('agents.conformance', { alias: 'echo' });
    expect(conformance.alias).toBe('echo');
    expect(conformance.operations).toContain('SendMessage');
    const cells = conformance.interfaces[0].cells as Frame[];
    // Read-only by default: sending is skipped, reading is probed.
    expect(cells.find((c) => c.operation === 'SendMessage')).toMatchObject({ status: 'skipped' });
    expect(cells.find((c) => c.operation === 'GetTask')).toMatchObject({ status: 'ok' });
  });

  it('sends and streams messages, previews requests and shows history', async () => {
    const sent = await adapter.ok('messages.send', { agent: 'echo', inputs: { text: 'hello there' } });
    expect(sent.response_shape).toBe('message');
    expect(sent.response.message.parts[0].text).toBe('echo: hello there');

    // Auth from the env-sourced header ref reaches the agent; the secret never comes back (checked at the end).
    const secured = await adapter.ok('messages.send', { agent: 'secure', inputs: { text: 'knock' } });
    expect(secured.response.message.parts[0].text).toBe('echo: knock');
    expect(agents.secure!.requests.some((r) => r.headers['x-api-key'] === HDR_SECRET)).toBe(true);

    const { reply, events } = await adapter.call('messages.stream', { agent: 'chunks', inputs: { text: 'stream me' } });
    expect(reply.ok).toBe(true);
    expect(events.length).toBe(reply.value.events);
    expect(events.map((e) => e.event)).toEqual(Array(events.length).fill('messages.stream.event'));
    expect(events.map((e) => e.payload.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.payload.variant === 'artifactUpdate').length).toBe(3);
    expect(reply.value.last_message_text).toBe('done: stream me');

    const before = (await adapter.ok('history.list')).entries.length;
    const preview = await adapter.ok('requests.preview', { target: { agent: 'echo' }, operation: 'send', inputs: { text: 'only a preview' } });
    expect(preview.requests[0].request.url.startsWith(agents.echo!.baseUrl)).toBe(true);
    expect(preview.requests[0].request.body).toContain('only a preview');
    const history = await adapter.ok('history.list', { limit: 10 });
    expect(history.entries.length).toBe(before);
    expect(history.entries.map((e: Frame) => e.operation)).toEqual(['stream', 'send', 'send']);
    const entry = history.entries.find((e: Frame) => e.message_id === sent.request.message_id);
    expect(entry).toMatchObject({ agent_alias: 'echo', answer_text: 'echo: hello there', outcome: 'completed' });
    const got = await adapter.ok('history.get', { messageId: sent.request.message_id });
    expect(got.request.parts[0].text).toBe('hello there');
    expect(got.response.message.parts[0].text).toBe('echo: hello there');
  });

  it('lists, gets, waits for and exports tasks and artifacts', async () => {
    const sent = await adapter.ok('messages.send', { agent: 'task', inputs: { text: 'do work' } });
    const taskId = sent.task.task_id as string;
    expect((await adapter.ok('tasks.list', { agent: 'task' })).tasks.map((t: Frame) => t.task_id)).toEqual([taskId]);
    const local = await adapter.ok('tasks.get', { taskId });
    expect(local.task).toMatchObject({ task_id: taskId, state: 'completed' });
    expect(local.artifacts.map((a: Frame) => a.artifact_id)).toEqual(['result']);
    expect((await adapter.ok('tasks.get', { taskId, remote: true })).task.state).toBe('completed');
    expect(await adapter.ok('tasks.wait', { taskId })).toMatchObject({ outcome: 'completed', exit_code: 0 });
    // A final task is followed from the journal, with no call.
    expect(await adapter.ok('tasks.follow', { taskId })).toMatchObject({ task: { state: 'completed' }, via: 'journal' });
    const artifact = await adapter.ok('artifacts.show', { taskId, artifactId: 'result' });
    expect(JSON.stringify(artifact.content)).toContain('result for: do work');
    const outputDir = join(box.home, 'exported');
    const exported = await adapter.ok('artifacts.export', { taskId, outputDir });
    expect(exported.files.length).toBe(1);
    const file = exported.files[0].file as string;
    const path = file.startsWith('/') ? file : join(outputDir, file);
    expect(existsSync(path)).toBe(true);
    expect(readFileSync(path, 'utf8')).toContain('result for: do work');
  });

  it('runs frames concurrently: a waiting tasks.wait does not hold up later frames, and tasks.cancel ends it', async () => {
    const started = await adapter.ok('messages.send', { agent: 'slow', inputs: { text: 'take your time', returnImmediately: true } });
    const taskId = started.task.task_id as string;
    const waiting = adapter.call('tasks.wait', { taskId });
    // Later frames are answered while tasks.wait still waits for the slow agent.
    expect(await adapter.ok('app.info')).toMatchObject({ version: VERSION });
    const cancelled = await adapter.ok('tasks.cancel', { taskId });
    expect(cancelled.task).toMatchObject({ task_id: taskId, state: 'cancelled' });
    const { reply } = await waiting;
    expect(reply).toMatchObject({ ok: true, value: { outcome: 'cancelled', exit_code: 81 } });

    // More frames than MAX_IN_FLIGHT in one write: each gets exactly one reply with its own id.
    const ids = Array.from({ length: MAX_IN_FLIGHT + 4 }, (_, i) => `burst-${i}`);
    const replies = Promise.all(ids.map((id) => adapter.reply(id)));
    adapter.write(ids.map((id) => JSON.stringify({ id, channel: 'app.info', input: {} })).join('\n') + '\n');
    const frames = (await replies).map((i) => adapter.frames[i]!);
    expect(frames.map((f) => f.id)).toEqual(ids);
    expect(frames.every((f) => f.ok === true && f.value.version === VERSION)).toBe(true);
    expect(adapter.frames.filter((f) => typeof f.id === 'string' && f.id.startsWith('burst-') && 'ok' in f).length).toBe(ids.length);
  });

  it('manages groups and runs collectives with member events carrying the request id', async () => {
    expect(await adapter.ok('groups.create', { group: 'pair', members: ['echo', 'task'] })).toMatchObject({ group_name: 'pair' });
    expect((await adapter.ok('groups.list')).groups).toEqual([expect.objectContaining({ group_name: 'pair', members: 2 })]);
    expect((await adapter.ok('groups.show', { group: 'pair' })).members.map((m: Frame) => [m.agent_alias, m.rank])).toEqual([
      ['echo', 0],
      ['task', 1],
    ]);

    const { reply, events } = await adapter.call('collectives.bcast', { group: 'pair', inputs: { text: 'all of you' } });
    expect(reply.ok).toBe(true);
    expect(reply.value.members.map((m: Frame) => [m.alias, m.status])).toEqual([
      ['echo', 'succeeded'],
      ['task', 'succeeded'],
    ]);
    expect(events.every((e) => e.event === 'collectives.member')).toBe(true);
    expect(
      events
        .filter((e) => e.payload.status === 'succeeded')
        .map((e) => e.payload.alias)
        .sort(),
    ).toEqual(['echo', 'task']);
    const contextId = reply.value.request.context_id as string;
    // Each member's answer, read where it arrived (no gather): the Collectives view's rows.
    const answers = await adapter.ok('collectives.answers', {
      members: reply.value.members.map((m: Frame) => ({ alias: m.alias, rank: m.rank, contextId, ...(m.task_id ? { taskId: m.task_id } : {}) })),
    });
    expect(answers.members.map((m: Frame) => m.text)).toEqual(['echo: all of you', 'done: all of you']);

    expect(await adapter.ok('collectives.barrier', { group: 'pair', contextId })).toMatchObject({ status: 'succeeded', exit_code: 0 });
    const gathered = await adapter.ok('collectives.gather', { group: 'pair', contextId });
    expect(gathered.members.map((m: Frame) => m.text)).toEqual(['echo: all of you', 'done: all of you']);
    const reduced = await adapter.ok('collectives.reduce', { group: 'pair', contextId, reduce: { strategy: 'merge' } });
    expect(reduced.reduced_text).toContain('echo: all of you');
    expect(reduced.reduced_text).toContain('done: all of you');
    expect(reduced.provenance.length).toBe(2);

    const round = await adapter.call('collectives.round', { group: 'pair', inputs: { text: 'next round' }, reduce: { strategy: 'merge' } });
    expect(round.reply.value).toMatchObject({ status: 'succeeded' });
    expect(round.reply.value.bcast.members.length).toBe(2);
    expect(round.events.filter((e) => e.event === 'collectives.member').length).toBeGreaterThanOrEqual(2);

    // Contexts: the bcast's context holds the conversation; a new one can be created and forked.
    const thread = await adapter.ok('contexts.thread', { context: contextId });
    expect(thread.items.map((i: Frame) => i.text).filter(Boolean)).toEqual(expect.arrayContaining(['all of you', 'echo: all of you']));
    const exported = await adapter.ok('contexts.export', { context: contextId });
    expect(exported.schema).toBe('missive.context_export.v1');
    expect(exported.context.context_id).toBe(contextId);
    const created = await adapter.ok('contexts.create', { name: 'mine' });
    expect(created).toMatchObject({ name: 'mine', state: 'open' });
    const forked = await adapter.ok('contexts.fork', { context: contextId, name: 'forked' });
    expect(forked).toMatchObject({ name: 'forked', parent_context_id: contextId });
    const contexts = (await adapter.ok('contexts.list')).contexts.map((c: Frame) => c.context_id);
    expect(contexts).toEqual(expect.arrayContaining([contextId, created.context_id, forked.context_id]));

    const journal = await adapter.ok('events.query', { type: 'missive.context.created', search: 'mine' });
    // Rows written for an adapter's callers say so (not `cli`, not `gui`).
    expect(journal.events.find((e: Frame) => e.contextId === created.context_id)?.source).toBe('adapter');

    expect(await adapter.ok('groups.delete', { group: 'pair' })).toMatchObject({ deleted: true });
    expect((await adapter.ok('groups.list')).groups).toEqual([]);
    expect((await adapter.fails('groups.show', { group: 'pair' })).exit_code).toBe(64);
  });

  it('starts, reports and stops the webhook receiver, pushing arrivals as event frames', async () => {
    const started = await adapter.ok('webhook.start', {});
    expect(started.listening).toBe(true);
    expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    const eventsBefore = adapter.frames.length;
    // A notification posted to the receiver is answered, counted and pushed as a webhook.arrival event frame.
    const res = await fetch(started.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ task: { id: 'nope' } }) });
    const arrival = await until(() => adapter.frames.slice(eventsBefore).find((f) => f.event === 'webhook.arrival'));
    expect(arrival.payload.status).toBe(res.status);
    expect(arrival).not.toHaveProperty('id');
    const status = await adapter.ok('webhook.status');
    expect(status).toMatchObject({ listening: true, url: started.url });
    expect(status.accepted + status.rejected).toBe(1);
    // The journal lists what the receiver took in or refused, newest first (the webhook panel's list).
    const listed = await until(async () => (await adapter.ok('webhook.callbacks', { limit: 5 })).callbacks[0]);
    expect(listed).toMatchObject({ outcome: res.status === 202 ? 'accepted' : 'rejected', task_id: 'nope' });
    expect(await adapter.ok('webhook.stop')).toMatchObject({ listening: false });
    expect((await adapter.ok('webhook.status')).listening).toBe(false);
  });

  it('lists, logs in, reports and logs out auth refs, and stores keyring secrets without echoing them', async () => {
    const list = await adapter.ok('auth.list');
    expect(list.auth_refs.find((r: Frame) => r.name === 'hdr')).toMatchObject({ kind: 'env', env: 'HDR_TOKEN', present: true });
    expect((await adapter.ok('auth.status', { target: 'hdr' })).auth_refs).toEqual([expect.objectContaining({ name: 'hdr', secret_present: true })]);
    // An agent alias names its auth ref too.
    expect(await adapter.ok('auth.login', { target: 'secure' })).toMatchObject({ auth_ref: 'hdr', token_cached: false });
    expect(await adapter.ok('auth.logout', { target: 'hdr' })).toMatchObject({ name: 'hdr', dropped: false });

    // A device-code login: the code to enter comes as an auth.deviceCode event carrying the request id, the
    // reply once the user approved; the token is cached, never shown.
    const login = adapter.call('auth.login', { target: 'dc' });
    const prompt = await until(() => adapter.frames.find((f) => f.event === 'auth.deviceCode'));
    expect(prompt.payload).toMatchObject({ auth_ref: 'dc', user_code: 'WDJB-MJHT', verification_uri: `${idp.url}/activate` });
    idp.approve();
    const { reply, events } = await login;
    expect(events).toEqual([prompt]);
    expect(reply).toMatchObject({ ok: true, value: { auth_ref: 'dc', flow: 'oauth2_device_code', token_cached: true } });
    expect(idp.issued.length).toBe(1);
    expect((await adapter.ok('auth.status', { target: 'dc' })).auth_refs[0].token_status).toMatchObject({ cached: true, fresh: true });
    expect(await adapter.ok('auth.logout', { target: 'dc' })).toMatchObject({ name: 'dc', dropped: true });

    // A peer echoing the header secret in its error: the error frame carries the failure, not the secret.
    await adapter.ok('agents.add', { alias: 'hostile', baseUrl: hostile.url, authRef: 'hdr' });
    const echoed = await adapter.fails('agents.inspect', { alias: 'hostile', refresh: true });
    expect(echoed).toMatchObject({ category: 'transport', exit_code: 69 });
    expect(hostile.requests.at(-1)!.headers['x-api-key']).toBe(HDR_SECRET);
    expect(JSON.stringify(echoed)).not.toContain(HDR_SECRET);

    if (list.keyring.available) {
      expect(await adapter.ok('auth.setSecret', { name: 'kr', secret: KR_SECRET })).toEqual({ ok: true, session_only: false });
      expect((await adapter.ok('auth.status', { target: 'kr' })).auth_refs[0].secret_present).toBe(true);
      expect(await adapter.ok('auth.deleteSecret', { name: 'kr' })).toEqual({ ok: true });
      expect((await adapter.ok('auth.status', { target: 'kr' })).auth_refs[0].secret_present).toBe(false);
    } else {
      if (process.env.MISSIVE_REQUIRE_KEYRING === '1') throw new Error(`keyring required but unavailable: ${JSON.stringify(list.keyring)}`);
      // Without a Secret Service the adapter answers what the CLI does: an auth error with the env fallback.
      const set = await adapter.fails('auth.setSecret', { name: 'kr', secret: KR_SECRET });
      expect(set).toMatchObject({ category: 'auth', exit_code: 77 });
      expect(set.help).toMatch(/kind "env"/);
      expect((await adapter.fails('auth.deleteSecret', { name: 'kr' })).exit_code).toBe(77);
    }
  });

  it('edits what it made: auth refs added, updated and removed (unlinking agents), an agent’s auth changed, group members and policy, a card as served', async () => {
    expect(await adapter.ok('auth.add', { name: 'edit-me', env: 'EDIT_ME_TOKEN' })).toMatchObject({ name: 'edit-me', kind: 'env', env: 'EDIT_ME_TOKEN' });
    expect(await adapter.ok('auth.update', { name: 'edit-me', env: 'EDIT_ME_KEY', flow: 'api_key', in: 'query', keyName: 'key' })).toMatchObject({
      name: 'edit-me',
      env: 'EDIT_ME_KEY',
    });
    expect(await adapter.ok('agents.set', { alias: 'secure', authRef: 'edit-me' })).toMatchObject({ alias: 'secure', auth_ref: 'edit-me' });
    expect(await adapter.ok('auth.remove', { name: 'edit-me' })).toEqual({ name: 'edit-me', removed: true, unlinked_agents: ['secure'] });
    expect((await adapter.ok('agents.list')).agents.find((a: Frame) => a.alias === 'secure').auth_ref).toBeNull();
    expect(await adapter.ok('agents.set', { alias: 'secure', authRef: 'hdr' })).toMatchObject({ alias: 'secure', auth_ref: 'hdr' });
    expect((await adapter.fails('agents.set', { alias: 'secure', authRef: 'no-such-ref' })).exit_code).toBe(78);
    // Binding a ref and confirming an agent on this host mean something on a shared store only (this one is local).
    expect((await adapter.fails('auth.bind', { name: 'hdr', env: 'HDR_TOKEN' })).code).toBe('missive::validation::store_not_shared');
    expect((await adapter.fails('agents.trust', { alias: 'secure' })).code).toBe('missive::validation::store_not_shared');

    expect(await adapter.ok('groups.create', { group: 'trio', members: ['echo'] })).toMatchObject({ group_name: 'trio' });
    await adapter.ok('groups.addMember', { group: 'trio', alias: 'task' });
    await adapter.ok('groups.addMember', { group: 'trio', alias: 'chunks' });
    const edited = await adapter.ok('groups.removeMember', { group: 'trio', alias: 'echo' });
    expect(edited.members.map((m: Frame) => m.agent_alias)).toEqual(['task', 'chunks']);
    expect(await adapter.ok('groups.update', { group: 'trio', routingPolicy: 'round-robin', notes: 'edited' })).toMatchObject({
      routing_policy: 'round-robin',
      notes: 'edited',
    });
    expect(await adapter.ok('groups.delete', { group: 'trio' })).toMatchObject({ deleted: true });

    const raw = await adapter.ok('agents.rawCard', { alias: 'echo' });
    expect(raw).toMatchObject({ http_status: 200, is_json: true, issues: [] });
    expect(raw.raw_card.name).toBe('echo');
  });

  it('answers the desktop-only directory picker with null, starts the demo and removes agents', async () => {
    expect(await adapter.ok('dialogs.chooseDirectory', { title: 'Export to…' })).toEqual({ path: null });
    const demo = await adapter.ok('demo.start');
    expect(demo.agents.length).toBeGreaterThan(0);
    for (const a of demo.agents) expect(a.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const first = demo.agents[0].alias as string;
    expect((await adapter.ok('agents.list')).agents.map((a: Frame) => a.alias)).toContain(first);
    // An agent with tasks in the journal is kept; one without is removed.
    expect((await adapter.fails('agents.remove', { alias: 'chunks' })).code).toBe('missive::validation::agent_has_tasks');
    expect(await adapter.ok('agents.remove', { alias: 'secure' })).toMatchObject({ alias: 'secure', removed: true });
    const left = (await adapter.ok('agents.list')).agents.map((a: Frame) => a.alias);
    expect(left).toContain('chunks');
    expect(left).not.toContain('secure');
  });
});

describe('adapter stdio: malformed frames', () => {
  const expectError = (reply: Frame, id: unknown, reason: string) => {
    expect(reply).toMatchObject({ id, ok: false, error: { code: `missive::validation::${reason}`, category: 'validation', exit_code: 64 } });
  };
  /** After each bad frame, the next valid frame is still answered. */
  const stillAnswers = async () => expect((await adapter.call('app.info')).reply).toMatchObject({ ok: true, value: { version: VERSION } });

  it('answers each with an error frame (id null when unknown) and goes on', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['this is not json\n', null, 'invalid_json'],
      ['[1,2,3]\n', null, 'invalid_frame'],
      ['"just a string"\n', null, 'invalid_frame'],
      ['{"channel":"app.info","input":{}}\n', null, 'invalid_frame_id'],
      ['{"id":true,"channel":"app.info"}\n', null, 'invalid_frame_id'],
      ['{"id":1.5,"channel":"app.info"}\n', null, 'invalid_frame_id'],
      ['{"id":"","channel":"app.info"}\n', null, 'invalid_frame_id'],
      [`{"id":"${'x'.repeat(257)}","channel":"app.info"}\n`, null, 'invalid_frame_id'],
      ['{"id":"k1","channel":"app.info","input":{},"extra":1}\n', 'k1', 'invalid_frame'],
      ['{"id":"k2","input":{}}\n', 'k2', 'invalid_frame'],
      ['{"id":"k3","channel":"no.such.channel","input":{}}\n', 'k3', 'unknown_channel'],
      ['{"id":"k3b","channel":"toString","input":{}}\n', 'k3b', 'unknown_channel'],
      ['{"id":"k3c","channel":"__proto__","input":{}}\n', 'k3c', 'unknown_channel'],
      ['{"id":"k3d","channel":42,"input":{}}\n', 'k3d', 'invalid_frame'],
      ['{"id":"k3e","channel":"app.info","input":[1]}\n', 'k3e', 'invalid_input'],
      ['{"id":"k4","channel":"agents.add","input":{"alias":"","baseUrl":"http://127.0.0.1:1"}}\n', 'k4', 'invalid_input'],
      ['{"id":"k5","channel":"app.info","input":{"unexpected":true}}\n', 'k5', 'invalid_input'],
      ['{"id":7,"channel":"history.list","input":{"limit":0}}\n', 7, 'invalid_input'],
      [`${'['.repeat(200)}${']'.repeat(200)}\n`, null, 'frame_too_deep'],
    ];
    for (const [text, id, reason] of cases) {
      expectError(await adapter.raw(text, id), id, reason);
      await stillAnswers();
    }
    // The unknown channel is named in the message.
    expect((await adapter.raw('{"id":"k6","channel":"nope"}\n', 'k6')).error.message).toContain('"nope"');
  });

  it('rejects a line over the size limit without holding it, then goes on', async () => {
    const big = `{"id":"big","channel":"app.info","input":{"x":"${'a'.repeat(MAX_FRAME_BYTES)}"}}\n`;
    expectError(await adapter.raw(big, null), null, 'frame_too_large');
    await stillAnswers();
  });

  it('skips blank lines and accepts CRLF line ends and integer ids', async () => {
    const reply = await adapter.raw('\n   \n{"id":42,"channel":"app.info","input":{}}\r\n', 42);
    expect(reply).toMatchObject({ id: 42, ok: true });
  });
});

describe('adapter stdio: single-shot', () => {
  const singleShot = async (stdin: string) => {
    const child = new Adapter(box, ['--mode', 'single-shot']);
    child.write(stdin);
    const code = await child.close();
    expect(child.unparsed).toEqual([]);
    return { code, frames: child.frames };
  };

  it('answers one frame and exits 0', async () => {
    const { code, frames } = await singleShot('{"id":1,"channel":"app.info","input":{}}\n{"id":2,"channel":"app.info","input":{}}\n');
    expect(code).toBe(0);
    expect(frames).toEqual([expect.objectContaining({ id: 1, ok: true, value: expect.objectContaining({ version: VERSION }) })]);
  });

  it("exits with the frame's exit code: 64 for an input outside the schema", async () => {
    const { code, frames } = await singleShot('{"id":"a","channel":"agents.inspect","input":{"alias":""}}\n');
    expect(code).toBe(64);
    expect(frames).toEqual([
      expect.objectContaining({ id: 'a', ok: false, error: expect.objectContaining({ code: 'missive::validation::invalid_input', exit_code: 64 }) }),
    ]);
  });

  it('exits after its frame even when standard input stays open', async () => {
    const child = new Adapter(box, ['--mode', 'single-shot']);
    child.write('{"id":"open","channel":"app.info","input":{}}\n');
    expect(await child.exited).toBe(0);
    expect(child.frames).toEqual([expect.objectContaining({ id: 'open', ok: true })]);
  });

  it('exits 64 with a no_frame error when the input ends without a frame', async () => {
    const { code, frames } = await singleShot('');
    expect(code).toBe(64);
    expect(frames).toEqual([expect.objectContaining({ id: null, ok: false, error: expect.objectContaining({ code: 'missive::validation::no_frame' }) })]);
  });
});

describe('adapter stdio: --follow-events', () => {
  it('pushes new journal rows as events.appended frames, as the Events view tail does', async () => {
    const follower = new Adapter(box, ['--follow-events']);
    try {
      const created = (await follower.call('contexts.create', { name: 'followed' })).reply;
      expect(created.ok).toBe(true);
      const appended = await until(() =>
        follower.frames.find(
          (f) =>
            f.event === 'events.appended' &&
            f.payload.events.some((e: Frame) => e.type === 'missive.context.created' && e.contextId === created.value.context_id),
        ),
      );
      expect(appended).not.toHaveProperty('id');
    } finally {
      expect(await follower.close()).toBe(0);
    }
    expect(follower.unparsed).toEqual([]);
  });
});

describe('adapter stdio: signals', () => {
  it('stops reading on SIGTERM and exits 0 with stdin still open, after answering what it read', async () => {
    const child = new Adapter(box);
    expect((await child.call('app.info')).reply.ok).toBe(true);
    child.child.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    expect(child.unparsed).toEqual([]);
  });
});

describe('adapter stdio: output', () => {
  it('wrote frames only, never a secret, and covered every channel of the contract', async () => {
    expect(adapter.unparsed).toEqual([]);
    for (const frame of adapter.frames) expect('ok' in frame ? 'id' in frame : typeof frame.event === 'string' && 'payload' in frame).toBe(true);
    expect(adapter.stdout).not.toContain(HDR_SECRET);
    expect(adapter.stdout).not.toContain(KR_SECRET);
    expect(adapter.stderr).not.toContain(HDR_SECRET);
    for (const token of idp.issued) expect(adapter.stdout).not.toContain(token);
    expect([...exercised].sort()).toEqual(Object.keys(CHANNELS).sort());
    // End of input ends a long-running adapter with exit 0.
    expect(await adapter.close()).toBe(0);
  });
});

/** Polls an (async) probe until it answers something truthy: at most 200 tries, 50 ms apart. */
async function until<T>(probe: () => T | undefined | null | false | Promise<T | undefined | null | false>): Promise<T> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const value = await probe();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('gave up waiting');
}
