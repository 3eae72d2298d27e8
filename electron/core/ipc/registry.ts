/**
 * The handler registry behind the IPC contract: validates each call's input and output with the contract, calls the
 * same services as the CLI, and maps errors to the CLI's `{code, category, message, exit_code, help}` report.
 * Independent of Electron: the main process binds it to `ipcMain.handle`, the browser tests to `page.exposeBinding`.
 */
import {
  CHANNELS,
  EVENT_CHANNELS,
  isChannel,
  type Channel,
  type ChannelOutput,
  type EventChannel,
  type EventPayload,
  type IpcResult,
} from '../../../shared/ipc/contract.js';
import { guiReport, MissiveError, toMissiveError, usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { redactValue, scrubSecrets } from '../security/redact.js';
import { addAgent, listAgentViews, removeAgent } from '../agents/registry.js';
import { registerAgentWithCard } from '../agents/register-with-card.js';
import { setAgent } from '../agents/agent-set.js';
import { fetchRawCard } from '../agents/raw-card.js';
import { withSessionFallback } from '../auth/session-secrets.js';
import { inspectAgentCard } from '../agents/extended-card.js';
import { sendMessage, type SendInput } from '../messaging/send.js';
import { streamMessage } from '../messaging/stream.js';
import { streamRecordDetail } from '../messaging/stream-parts.js';
import { addMember, createGroup, deleteGroup, listGroups, removeMember, requireGroup, updateGroup } from '../collectives/groups.js';
import { bcast } from '../collectives/bcast.js';
import { barrier } from '../collectives/barrier.js';
import { gather } from '../collectives/gather.js';
import { memberAnswers } from './member-answers.js';
import { reduce } from '../collectives/reduce.js';
import { round } from '../collectives/round.js';
import { listTaskPage } from '../tasks/list.js';
import { cancelTask, localTask, remoteTask, waitForTask } from '../tasks/service.js';
import { followTaskStep } from '../gateway/follow-step.js';
import { exportArtifacts, showArtifact } from '../artifacts/service.js';
import { queryJournalPage } from '../events/journal-page.js';
import { createContext, exportContext, forkContext, listContextSummaries } from '../contexts/service.js';
import { trustAgent } from '../agents/trust.js';
import { addAuth, bindAuth, deleteSecret, listAuth, removeAuth, setSecret, updateAuth } from '../auth/service.js';
import { authStatus, loginAuth, logoutAuth } from '../auth/login.js';
import { VERSION } from '../version.js';
import { agentsHealth, refreshAllAgents } from '../agents/health.js';
import { runConformance } from '../conformance/probe.js';
import { previewRequests } from '../messaging/preview.js';
import { getHistoryEntry, listHistory } from '../history/service.js';
import { contextThread } from '../contexts/thread.js';
import { createWebhookHost } from './webhook-host.js';
import { listCallbacks } from '../webhook/callback-list.js';
import { createDemoHost } from './demo-host.js';
import { tailEvents } from './event-tail.js';
import { createWireLog, recordWireCalls } from './wire-log.js';
import { withEventSource, withoutEventSource } from '../store/event-source.js';
import type { ChannelHandlers } from './channel-handlers.js';
import { isSharedStore } from '../store/selection.js';

export interface RegistryDeps {
  core: Core;
  cwd: string;
  /** Pushes a typed event to the renderer. */
  emit: <E extends EventChannel>(channel: E, payload: EventPayload<E>) => void;
  /** The host's directory picker (Electron: a native dialog); absent → the channel answers null. */
  chooseDirectory?: (title?: string) => Promise<string | null>;
  /** Follow the journal and push `events.appended` (the live tail of the Events view). */
  tailEventsMs?: number;
  /** The `source` of the journal rows its calls write (default `gui`; the CLI's own commands write `cli`). */
  eventSource?: string;
  /** Secrets set without a keyring are kept for this session (the desktop app, default) or refused as the CLI does (adapters: false). */
  sessionSecrets?: boolean;
}

export interface Registry {
  readonly channels: Channel[];
  invoke<C extends Channel>(channel: C | string, input: unknown): Promise<IpcResult<C>>;
  dispose(): Promise<void>;
}

export function createRegistry(deps: RegistryDeps): Registry {
  const { cwd } = deps;
  // Secrets typed into the app go to the keyring, or without one to this session's memory (and the app says so).
  const core: Core = deps.sessionSecrets === false ? deps.core : { ...deps.core, secrets: withSessionFallback(deps.core.secrets) };
  /** Redaction by shape, then every credential this process sent or was given (a peer may echo one back). */
  const scrub = <T>(value: T): T => scrubSecrets(redactValue(value), core.knownSecrets());
  const emit = <E extends EventChannel>(channel: E, payload: unknown) => {
    const checked = EVENT_CHANNELS[channel].safeParse(scrub(payload));
    if (checked.success) deps.emit(channel, checked.data as EventPayload<E>);
  };
  const withCwd = (agent: string, inputs: Omit<SendInput, 'agent' | 'cwd'>): SendInput => ({ ...inputs, agent, cwd });
  /** The core with a collective's own deadline (the CLI's `--timeout`), when the call names one. */
  const timed = (timeoutMs: number | undefined): Core => (timeoutMs ? { ...core, timeoutMs } : core);
  const webhook = createWebhookHost(core, (arrival) => emit('webhook.arrival', arrival));
  const demo = createDemoHost(core);
  /** The wire of recent sends and streams of this session, by request message id (history.get shows it). */
  const wireLog = createWireLog();
  const wireCalls = recordWireCalls(wireLog);

  // Typed by the contract: each handler answers what its channel's output schema accepts, or this does not compile.
  const handlers: ChannelHandlers = {
    'app.info': () => ({
      version: VERSION,
      profile: core.config.profile,
      profiles: core.config.profiles,
      config: core.config.source.path ?? null,
      state: core.paths.state,
      // Where the journal is: the SQLite file, or the shared PostgreSQL store (its URL without the password, and schema).
      database: isSharedStore(core.storeSelection) ? `${core.storeSelection.display} (schema ${core.storeSelection.schema})` : core.paths.database,
      sharedStore: isSharedStore(core.storeSelection),
    }),
    'agents.list': async () => ({ agents: await listAgentViews(core) }),
    'agents.add': ({ fetchCard, ...i }) => {
      const input = { ...i, clientTls: i.clientTls && { ...i.clientTls, baseDir: cwd }, cardKeys: i.cardKeys && { ...i.cardKeys, baseDir: cwd } };
      if (fetchCard || input.cardUrl) return registerAgentWithCard(core, input);
      return addAgent(core, { ...input, baseUrl: input.baseUrl! });
    },
    'agents.set': (i) => setAgent(core, i.alias, { authRef: i.authRef, clientTls: i.clientTls, cardKeys: i.cardKeys }, cwd),
    'agents.rawCard': (i) => fetchRawCard(core, i),
    'agents.remove': (i) => removeAgent(core, i.alias),
    'agents.trust': (i) => trustAgent(core, i.alias),
    'agents.inspect': (i) => inspectAgentCard(core, i.alias, { refresh: i.refresh, binding: i.binding, extended: i.extended }),
    'agents.refreshAll': () => refreshAllAgents(core),
    'agents.health': async () => ({ agents: await agentsHealth(core) }),
    'agents.conformance': (i) => runConformance(core, i.alias, { includeSend: i.includeSend }),
    'messages.send': (i) => wireCalls.run(i.wire, (wire) => sendMessage(core, { ...withCwd(i.agent, i.inputs), ...wire })),
    'messages.stream': (i) =>
      wireCalls.run(i.wire, (wire) =>
        streamMessage(core, {
          ...withCwd(i.agent, i.inputs),
          ...wire,
          force: i.force,
          onEvent: (e, record) => emit('messages.stream.event', { ...e, ...streamRecordDetail(record) }),
        }),
      ),
    'requests.preview': (i) => previewRequests(core, { ...i, cwd }),
    'history.list': (i) => listHistory(core, i),
    'history.get': (i) => getHistoryEntry(core, i.messageId, (id) => wireLog.get(id)),
    'groups.list': async () => ({ groups: await listGroups(core) }),
    'groups.show': (i) => requireGroup(core, i.group),
    'groups.create': (i) => createGroup(core, i.group, { members: i.members, routingPolicy: i.routingPolicy, notes: i.notes }),
    'groups.addMember': (i) => addMember(core, i.group, i.alias, i.rank),
    'groups.removeMember': (i) => removeMember(core, i.group, i.alias),
    'groups.update': (i) => updateGroup(core, i.group, { routingPolicy: i.routingPolicy, notes: i.notes }),
    'groups.delete': (i) => deleteGroup(core, i.group),
    'collectives.bcast': (i) => {
      const { contextId, ...inputs } = i.inputs;
      return bcast(
        timed(i.timeoutMs),
        { ...inputs, cwd },
        {
          group: i.group,
          contextId,
          execution: i.execution,
          maxConcurrency: i.maxConcurrency,
          failurePolicy: i.failurePolicy,
          onMember: (m) => emit('collectives.member', m),
        },
      );
    },
    'collectives.barrier': (i) =>
      barrier(timed(i.timeoutMs), {
        group: i.group,
        contextId: i.contextId,
        required: i.required,
        failurePolicy: i.failurePolicy,
        local: i.local,
        intervalMs: 250,
      }),
    'collectives.gather': async (i) => gather(core, { group: i.group, contextId: i.contextId, cwd }),
    'collectives.answers': (i) => memberAnswers(core, i.members),
    'collectives.reduce': (i) => reduce(core, { group: i.group, contextId: i.contextId, cwd, ...i.reduce }),
    'collectives.round': (i) => {
      const { contextId, ...inputs } = i.inputs;
      return round(timed(i.timeoutMs), {
        group: i.group,
        contextId,
        inputs: { ...inputs, cwd },
        execution: i.execution,
        maxConcurrency: i.maxConcurrency,
        failurePolicy: i.failurePolicy,
        reduce: i.reduce,
        barrier: i.barrier,
        cwd,
        onMember: (m) => emit('collectives.member', m),
      });
    },
    'tasks.list': (i) => listTaskPage(core, i),
    'tasks.get': (i) => (i.remote ? remoteTask(core, i.taskId) : localTask(core, i.taskId)),
    'tasks.cancel': (i) => cancelTask(core, i.taskId),
    'tasks.wait': (i) => waitForTask(core, i.taskId, { local: i.local }),
    'tasks.follow': (i) => followTaskStep(core, i.taskId, { maxMs: i.maxMs }),
    'artifacts.show': (i) => showArtifact(core, i.taskId, i.artifactId),
    'artifacts.export': (i) => exportArtifacts(core, i.taskId, i.outputDir, { force: i.force, cwd }),
    // One bounded page through the storage interface (either store), and `next` when there may be more: a call never
    // holds this loop long, whatever the journal's size or the limit (events/journal-page.ts).
    'events.query': (i) => queryJournalPage(core, i),
    'contexts.list': async () => ({ contexts: await listContextSummaries(core) }),
    'contexts.create': (i) => createContext(core, { name: i.name }),
    'contexts.fork': (i) => forkContext(core, i.context, i.name),
    'contexts.thread': (i) => contextThread(core, i.context),
    'contexts.export': async (i) => {
      // Without `output` the export writes no file and answers its document.
      const { document } = await exportContext(core, i.context, { cwd });
      if (!document) throw new MissiveError('internal', 'invalid_output', 'contexts.export wrote a file instead of answering its document');
      return document;
    },
    'webhook.start': (i) => withoutEventSource(() => webhook.start(i.port)),
    'webhook.stop': () => webhook.stop(),
    'webhook.status': () => webhook.status(),
    'webhook.callbacks': (i) => listCallbacks(core, i),
    'auth.list': () => listAuth(core),
    // The secret goes to the keyring; nothing of it comes back.
    'auth.add': (i) => addAuth(core, i),
    'auth.update': (i) => updateAuth(core, i),
    'auth.bind': (i) => bindAuth(core, i.name, i),
    'auth.remove': (i) => removeAuth(core, i.name),
    'auth.setSecret': async (i) => (
      core.rememberSecrets([i.secret]),
      { ok: true as const, session_only: (await setSecret(core, i.name, i.secret)).session_only }
    ),
    'auth.deleteSecret': async (i) => (await deleteSecret(core, i.name), { ok: true as const }),
    'auth.login': (i) => loginAuth(core, i.target, { onDeviceCode: (prompt) => emit('auth.deviceCode', prompt) }),
    'auth.status': (i) => authStatus(core, i.target),
    'auth.logout': (i) => logoutAuth(core, i.target),
    'dialogs.chooseDirectory': async (i) => ({ path: (await deps.chooseDirectory?.(i.title)) ?? null }),
    'demo.start': () => demo.start(),
  };

  // The core's warnings (credentials over plain http, kind-less results…) reach the window as notices.
  const stopNotices = core.onWarning((message) => emit('app.notice', { level: 'warning', message }));
  // The live journal tail, on either store; it starts once the store is open (a store that cannot open says so on
  // the first call, as any channel does).
  let stopTail: (() => void) | undefined;
  let tailStopped = false;
  if (deps.tailEventsMs) {
    const every = deps.tailEventsMs;
    void core
      .storage()
      .then((storage) => {
        if (tailStopped) return;
        stopTail = tailEvents(
          storage.journalReads,
          every,
          (events) => emit('events.appended', { events }),
          (error) => emit('app.notice', { level: 'warning', message: `the live journal tail could not read the store: ${toMissiveError(error).message}` }),
        );
      })
      .catch(() => undefined);
  }

  return {
    channels: Object.keys(CHANNELS) as Channel[],
    async invoke<C extends Channel>(channel: C | string, input: unknown): Promise<IpcResult<C>> {
      try {
        if (!isChannel(channel)) throw usageError('unknown_channel', `no IPC channel named "${String(channel)}"`);
        const spec = CHANNELS[channel];
        const parsed = spec.input.safeParse(input ?? {});
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw usageError('invalid_input', `${channel}: ${issue?.path.join('.') || 'input'} ${issue?.message ?? 'is invalid'}`);
        }
        const output = scrub(await withEventSource(deps.eventSource ?? 'gui', () => (handlers[channel] as (i: unknown) => unknown)(parsed.data)));
        const checked = spec.output.safeParse(output);
        if (!checked.success)
          throw new MissiveError('internal', 'invalid_output', `${channel} produced output outside the contract: ${checked.error.issues[0]?.message}`);
        return { ok: true, data: checked.data as ChannelOutput<C> };
      } catch (error) {
        // The window's report: the GUI's help and action beside the CLI's help, when the error has them.
        const report = scrub(guiReport(toMissiveError(error)));
        // A failed messages.send|stream with `wire: true` shows what went over the wire.
        const wire = wireCalls.failed(error);
        return { ok: false, error: wire ? { ...report, wire: scrub(wire) } : report };
      }
    },
    async dispose() {
      tailStopped = true;
      stopTail?.();
      stopNotices();
      await webhook.stop();
      await demo.close();
    },
  };
}
