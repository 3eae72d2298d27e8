/**
 * The one IPC contract between the Electron main process and the renderer. Every channel maps to a zod input and
 * output schema; both sides infer their types from here, and no channel name is written anywhere else. The output
 * schemas (shared/ipc/outputs/) type every field the renderer reads; the registry checks each answer against them.
 * Isomorphic: no node:*, no DOM, no electron.
 */
import { z } from 'zod';
import * as out from './outputs/index.js';
import { ROUTE_POLICIES } from '../route-policies.js';

const id = z.string().min(1).max(256);
const alias = z.string().min(1).max(63);
const { loose } = out;
const binding = z.enum(['http+json', 'json-rpc', 'grpc']);

/** What the compose view can send: the same inputs as `missive send`. */
const messageInputs = z.strictObject({
  text: z.string().max(1_000_000).optional(),
  parts: z.array(z.string()).max(64).optional(),
  jsonParts: z.array(z.string()).max(64).optional(),
  files: z.array(z.string()).max(64).optional(),
  fileBytes: z.array(z.string()).max(64).optional(),
  fileUrls: z.array(z.string()).max(64).optional(),
  contextId: z.string().min(1).max(256).optional(),
  metadata: z.array(z.string()).max(64).optional(),
  acceptedOutputModes: z.array(z.string()).max(16).optional(),
  returnImmediately: z.boolean().optional(),
  binding: binding.optional(),
});
export type MessageInputs = z.input<typeof messageInputs>;
/** What Compose sends to one agent: the inputs plus the task it answers (`--task`) and an inline push URL (`--push-url`). */
const sendInputs = messageInputs.extend({ taskId: id.optional(), pushUrl: z.string().min(1).max(2048).optional() });
export type SendInputs = z.input<typeof sendInputs>;

/**
 * One HTTP exchange (or gRPC call) as it went over the wire, secrets redacted: what the wire view, `--show-wire` and
 * "Copy as curl" show. Bodies are cut at 256 KiB (`truncated`); each SSE frame keeps its arrival time.
 */
const wireHeaders = z.record(z.string(), z.string());
export const wireRequest = z.object({
  /** `http` for HTTP+JSON and JSON-RPC (and the SDK's v0.3 wires); `grpc` for gRPC (method name, metadata, message JSON). */
  protocol: z.enum(['http', 'grpc']),
  method: z.string(),
  url: z.string(),
  headers: wireHeaders,
  body: z.string().nullable(),
  truncated: z.boolean().optional(),
});
export const wireExchange = z.object({
  id: z.string(),
  /** The A2A operation, e.g. SendMessage, SendStreamingMessage, GetTask. */
  operation: z.string(),
  started_at: z.string(),
  duration_ms: z.number().nullable(),
  request: wireRequest,
  response: z
    .object({
      status: z.number(),
      headers: wireHeaders,
      body: z.string().nullable(),
      truncated: z.boolean().optional(),
    })
    .nullable(),
  /** Stream records in arrival order: `at_ms` after the request left. At most 10,000 are kept (`frames_dropped`). */
  frames: z.array(z.object({ at_ms: z.number(), event: z.string().nullable(), data: z.string() })).optional(),
  frames_dropped: z.number().optional(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type WireRequest = z.output<typeof wireRequest>;
export type WireExchange = z.output<typeof wireExchange>;

const fanOut = z.strictObject({
  group: alias,
  inputs: messageInputs,
  execution: z.enum(['concurrent', 'sequential']).optional(),
  maxConcurrency: z.number().int().min(1).max(1024).optional(),
  failurePolicy: z.enum(['stop', 'continue']).optional(),
  /** The run's overall deadline, as the CLI's `--timeout` (default: the profile's `[qos].timeout`). */
  timeoutMs: z.number().int().min(1).max(3_600_000).optional(),
});

const reduceFlags = z.strictObject({
  strategy: z.enum(['summarise', 'vote', 'merge', 'rank', 'custom']).optional(),
  template: z.string().max(100_000).optional(),
  reducerAgent: alias.optional(),
});

/** A barrier's quorum: how many members must reach a success state. */
const quorum = z.number().int().min(1).max(10_000);
/** The routing policies `group create|set --routing-policy` take. */
const routingPolicy = z.enum(ROUTE_POLICIES);

/** The `collectives.member` event's payload. */
const member = loose({
  alias: z.string(),
  rank: z.number(),
  status: z.string(),
  state: z.string().nullable().optional(),
  latency_ms: z.number().nullable().optional(),
  error: loose({ code: z.string(), message: z.string() }).nullable().optional(),
});
const ok = z.object({ ok: z.literal(true) });

/** Agents and auth refs (G1): what `agent add|set` and `auth add` take; paths are resolved against the app's folder. */
const path = z.string().min(1).max(4096);
const url = z.string().min(1).max(2048);
const clientTlsInput = z.strictObject({ certFile: path.optional(), keyFile: path.optional(), caFile: path.optional(), passphraseRef: alias.optional() });
const cardKeysInput = z.strictObject({ jwksUrl: url.optional(), jwksFile: path.optional() });
const authRefInput = z.strictObject({
  name: alias,
  env: z.string().min(1).max(255).optional(),
  keyringService: z.string().min(1).max(255).optional(),
  keyringAccount: z.string().min(1).max(255).optional(),
  header: z.string().min(1).max(255).optional(),
  scheme: z.string().max(64).optional(),
  flow: z.enum(['header', 'basic', 'api_key', 'oauth2_client_credentials', 'oauth2_device_code']).optional(),
  username: z.string().min(1).max(255).optional(),
  in: z.enum(['header', 'query', 'cookie']).optional(),
  keyName: z.string().min(1).max(255).optional(),
  tokenUrl: url.optional(),
  issuer: url.optional(),
  clientId: z.string().min(1).max(512).optional(),
  scopes: z.array(z.string().min(1).max(255)).max(64).optional(),
  audience: z.string().min(1).max(512).optional(),
  deviceAuthorizationUrl: url.optional(),
});

/** One send or stream as the journal remembers it (history: reopen, re-run, diff). */
export const historyEntry = z.looseObject({
  message_id: z.string(),
  operation: z.enum(['send', 'stream']),
  agent_alias: z.string().nullable(),
  context_id: z.string().nullable(),
  task_id: z.string().nullable(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  outcome: z.enum(['completed', 'failed', 'running', 'unconfirmed']),
  /** The task's last state, when the answer was (or became) a task. */
  state: z.string().nullable(),
  /** The request's text parts (shortened to 200 characters for the list). */
  request_text: z.string(),
  /** The answer's text (message, status message or streamed text), null when none. */
  answer_text: z.string().nullable(),
  error: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
  /** Who sent it: host, OS user and actor id (a gateway's id for a job's send); null when the journal predates them. */
  actor: z.object({ host: z.string(), user: z.string(), id: z.string() }).nullable().optional(),
  /** What Compose needs to reopen or re-run it: the same inputs as messages.send. */
  inputs: messageInputs,
});
export type HistoryEntry = z.output<typeof historyEntry>;

/** What missive knows of an agent's health: the card cache and the last calls the journal holds. */
export const agentHealth = z.looseObject({
  alias: z.string(),
  card_fetched_at: z.string().nullable(),
  last_ok_at: z.string().nullable(),
  last_error: z.looseObject({ code: z.string(), message: z.string(), at: z.string() }).nullable(),
  /** true: the last contact worked; false: it failed with a transport error; null: never contacted. */
  reachable: z.boolean().nullable(),
  /** Why no interface of the cached card can be called (negotiation's error), or null: reachable or not, calls fail. */
  interface_problem: z.string().nullable().optional(),
});
export type AgentHealth = z.output<typeof agentHealth>;

/** What would go over the wire for a request that has not been sent: the basis of "Copy as curl". */
const previewedRequest = z.looseObject({
  agent: z.string(),
  binding: z.string(),
  dialect: z.string(),
  /** null when curl cannot speak it (gRPC, or a v0.3 agent spoken to through the SDK): `note` says why. */
  request: wireRequest.nullable(),
  note: z.string().nullable(),
});

export const CHANNELS = {
  'app.info': {
    input: z.strictObject({}),
    output: z.object({
      version: z.string(),
      profile: z.string(),
      profiles: z.array(z.string()),
      config: z.string().nullable(),
      state: z.string(),
      database: z.string(),
      /** The journal is a shared PostgreSQL store (team mode): the demo agents, which live in a personal store only, are not offered. */
      sharedStore: z.boolean(),
    }),
  },
  'agents.list': { input: z.strictObject({}), output: z.object({ agents: z.array(out.agentView) }) },
  /** Registers an agent. With `cardUrl`, or `fetchCard` (the desktop app's Register), its card is fetched first (at `cardUrl`, else the base URL's well-known paths) and a card that cannot be fetched or read registers nothing; a base URL alone registers without any network, as `missive agent add` does. */
  'agents.add': {
    input: z
      .strictObject({
        alias,
        baseUrl: url.optional(),
        cardUrl: url.optional(),
        authRef: alias.optional(),
        tags: z.array(z.string()).max(32).optional(),
        trustedOrigins: z.array(url).max(16).optional(),
        interfaces: z.array(z.string().min(1).max(2100)).max(8).optional(),
        bindingPreference: z.array(binding).max(3).optional(),
        notes: z.string().max(4096).optional(),
        clientTls: clientTlsInput.optional(),
        cardKeys: cardKeysInput.optional(),
        fetchCard: z.boolean().optional(),
      })
      .refine((i) => i.baseUrl || i.cardUrl, { message: 'give the agent’s base URL or its card URL', path: ['baseUrl'] }),
    output: out.agentView,
  },
  /** What `agent set` changes: the auth ref (null: none), the mutual TLS files (null: removed), the card-signing keys (null: removed). */
  'agents.set': {
    input: z.strictObject({
      alias,
      authRef: alias.nullable().optional(),
      clientTls: clientTlsInput.nullable().optional(),
      cardKeys: cardKeysInput.nullable().optional(),
    }),
    output: out.agentView,
  },
  /** The card as the agent serves it, read or refused: every issue and the raw JSON (an alias, or a URL not registered yet). */
  'agents.rawCard': { input: z.strictObject({ alias: alias.optional(), url: url.optional() }), output: out.rawCardView },
  'agents.remove': { input: z.strictObject({ alias }), output: loose({ alias: z.string(), removed: z.literal(true) }) },
  /** A shared store: this host confirms that the agent's credentials may go to its origins as the store has them now. */
  'agents.trust': {
    input: z.strictObject({ alias }),
    output: loose({
      alias: z.string(),
      origins: z.array(z.string()),
      auth_ref: z.string().nullable(),
      previous: loose({ origins: z.array(z.string()), auth_ref: z.string().nullable() }).nullable(),
    }),
  },
  'agents.inspect': {
    input: z.strictObject({ alias, refresh: z.boolean().optional(), binding: binding.optional(), extended: z.boolean().optional() }),
    output: out.inspectView,
  },
  /** Card fetch (refresh) of every registered agent, at most 4 at once; one failure does not stop the others. */
  'agents.refreshAll': {
    input: z.strictObject({}),
    output: z.object({
      agents: z.array(
        loose({
          alias: z.string(),
          ok: z.boolean(),
          latency_ms: z.number(),
          status: z.string().nullable(),
          error: loose({ code: z.string(), message: z.string() }).nullable(),
        }),
      ),
    }),
  },
  'agents.health': { input: z.strictObject({}), output: z.object({ agents: z.array(agentHealth) }) },
  /** `missive conformance`: every advertised operation × every card interface, read-only unless `includeSend` (core/conformance/probe.ts). */
  'agents.conformance': {
    input: z.strictObject({ alias, includeSend: z.boolean().optional() }),
    output: loose({
      alias: z.string(),
      card: loose({ name: z.string(), format: z.string(), url: z.string(), status: z.string(), latency_ms: z.number() }),
      /** Whether one short message per interface was sent (SendMessage, SendStreamingMessage); else they are skipped. */
      include_send: z.boolean(),
      operations: z.array(z.string()),
      interfaces: z.array(
        loose({
          id: z.string(),
          binding: z.string(),
          protocol_binding: z.string(),
          url: z.string(),
          dialect: z.string(),
          probed: z.boolean(),
          cells: z.array(
            loose({
              operation: z.string(),
              status: z.enum(['ok', 'failed', 'skipped', 'not_advertised', 'not_in_0.3']),
              code: z.string().nullable(),
              message: z.string().nullable(),
              note: z.string().nullable(),
              latency_ms: z.number().nullable(),
            }),
          ),
        }),
      ),
      summary: z.record(z.string(), z.number()),
      passed: z.boolean(),
      exit_code: z.number(),
    }),
  },
  /** `wire: true` adds `wire`, every exchange of the call (also kept for history.get in this session). */
  'messages.send': {
    input: z.strictObject({ agent: alias, inputs: sendInputs, wire: z.boolean().optional() }),
    output: out.sendResult.extend({ wire: z.array(wireExchange).optional() }),
  },
  'messages.stream': {
    input: z.strictObject({ agent: alias, inputs: sendInputs, force: z.boolean().optional(), wire: z.boolean().optional() }),
    output: out.streamResult.extend({ wire: z.array(wireExchange).optional() }),
  },
  /** The request(s) a send, stream or collective would make, built but not sent (nothing is journaled). */
  'requests.preview': {
    input: z.strictObject({
      target: z.union([z.strictObject({ agent: alias }), z.strictObject({ group: alias })]),
      operation: z.enum(['send', 'stream']),
      inputs: messageInputs,
    }),
    output: z.object({ requests: z.array(previewedRequest) }),
  },
  'history.list': {
    input: z.strictObject({
      agent: alias.optional(),
      operation: z.enum(['send', 'stream']).optional(),
      limit: z.number().int().min(1).max(1000).optional(),
      beforeSequence: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
    }),
    output: z.object({ entries: z.array(historyEntry), next_before_sequence: z.number().nullable() }),
  },
  /** One entry with the request and answer as journaled; `wire` when this session captured it (else null). */
  'history.get': {
    input: z.strictObject({ messageId: id }),
    output: loose({ entry: historyEntry, request: loose({}).nullable(), response: z.unknown(), wire: z.array(wireExchange).nullable() }),
  },
  'groups.list': { input: z.strictObject({}), output: z.object({ groups: z.array(out.groupRow) }) },
  'groups.show': { input: z.strictObject({ group: alias }), output: out.groupView },
  'groups.create': {
    input: z.strictObject({
      group: alias,
      members: z.array(z.string().min(1).max(80)).max(1024),
      routingPolicy: routingPolicy.optional(),
      notes: z.string().max(4096).optional(),
    }),
    output: out.groupView,
  },
  /** Adds a member, or moves it to `rank` (`group add`). */
  'groups.addMember': { input: z.strictObject({ group: alias, alias, rank: z.number().int().min(0).max(1_000_000).optional() }), output: out.groupView },
  'groups.removeMember': { input: z.strictObject({ group: alias, alias }), output: out.groupView },
  /** Routing policy and/or notes (`group set`); `notes: ''` clears them. */
  'groups.update': {
    input: z.strictObject({ group: alias, routingPolicy: routingPolicy.optional(), notes: z.string().max(4096).optional() }),
    output: out.groupView,
  },
  'groups.delete': { input: z.strictObject({ group: alias }), output: loose({ group: z.string(), deleted: z.literal(true) }) },
  'collectives.bcast': { input: fanOut, output: out.fanOutResult },
  'collectives.barrier': {
    input: z.strictObject({
      group: alias,
      contextId: id,
      required: quorum.optional(),
      local: z.boolean().optional(),
      failurePolicy: z.enum(['stop', 'continue']).optional(),
      timeoutMs: fanOut.shape.timeoutMs,
    }),
    output: out.barrierResult,
  },
  'collectives.gather': { input: z.strictObject({ group: alias, contextId: id }), output: out.gatherResult },
  /**
   * Each member's answer where it arrived, without a gather (nothing journaled): by the task a bcast or barrier
   * reported for it, else by the request a bcast sent it, else its latest task or reply in the context.
   */
  'collectives.answers': {
    input: z.strictObject({
      members: z
        .array(
          z.strictObject({
            alias,
            rank: z.number().int().min(0).max(1_000_000),
            contextId: id,
            taskId: id.optional(),
            requestMessageId: id.optional(),
          }),
        )
        .min(1)
        .max(1024),
    }),
    output: z.object({ members: z.array(out.memberOutput) }),
  },
  'collectives.reduce': { input: z.strictObject({ group: alias, contextId: id, reduce: reduceFlags.optional() }), output: out.reduceResult },
  /** `barrier.required`: the quorum the round's barrier waits for (default: every member the bcast reached). */
  'collectives.round': {
    input: fanOut.extend({ reduce: reduceFlags.optional(), barrier: z.strictObject({ required: quorum.optional() }).optional() }),
    output: out.roundResult,
  },
  'tasks.list': {
    input: z.strictObject({
      agent: alias.optional(),
      contextId: id.optional(),
      status: z.string().max(32).optional(),
      pageSize: z.number().int().min(1).max(1000).optional(),
      pageToken: z.string().max(512).optional(),
    }),
    output: out.taskPage,
  },
  'tasks.get': { input: z.strictObject({ taskId: id, remote: z.boolean().optional() }), output: out.taskView },
  'tasks.cancel': { input: z.strictObject({ taskId: id }), output: out.taskView },
  'tasks.wait': { input: z.strictObject({ taskId: id, local: z.boolean().optional() }), output: out.waitResult },
  /**
   * One step of following a task (a view shows it until it is final): a final task from the journal; else SubscribeToTask
   * (held at most `maxMs`, default 15 s) when the card advertises streaming and the task is not waiting for the user,
   * GetTask otherwise. The caller repeats it with backoff.
   */
  'tasks.follow': {
    input: z.strictObject({ taskId: id, maxMs: z.number().int().min(500).max(60_000).optional() }),
    output: out.taskView.extend({
      via: z.enum(['journal', 'subscription', 'poll']),
      /** The latest status message's text: what an interrupted task asks. */
      status_text: z.string().nullable(),
      /** The task's answer text: its status message, else its artifacts. */
      answer_text: z.string().nullable(),
    }),
  },
  'artifacts.show': { input: z.strictObject({ taskId: id, artifactId: id }), output: loose({ artifact_id: z.string(), content: loose({}) }) },
  'artifacts.export': {
    input: z.strictObject({ taskId: id, outputDir: z.string().min(1).max(4096), force: z.boolean().optional() }),
    output: out.artifactExport,
  },
  'events.query': {
    input: z.strictObject({
      limit: z.number().int().min(1).max(200_000).optional(),
      type: z.string().max(128).optional(),
      contextId: id.optional(),
      taskId: id.optional(),
      afterSequence: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
      /** Older events than this sequence (a previous answer's `next`); without it or `afterSequence`: the newest. */
      beforeSequence: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
      /** Free text matched (case-insensitively) against the type, agent, ids and the redacted payload. */
      search: z.string().max(256).optional(),
      /** Only events written on this host (its hostname), by this OS user: exact. */
      actorHost: z.string().min(1).max(255).optional(),
      actorUser: z.string().min(1).max(255).optional(),
    }),
    /**
     * One bounded page, oldest first: at most 250 events whatever `limit` asks, fewer (even none) when a store
     * stopped scanning to keep the app responsive. `next`, when present, is passed back (with the same filters and
     * the limit still wanted) to read on; absent, nothing more matches that way.
     */
    output: z.object({
      events: z.array(out.journalEvent),
      next: z.union([z.strictObject({ beforeSequence: z.number().int().min(1) }), z.strictObject({ afterSequence: z.number().int().min(0) })]).optional(),
    }),
  },
  'contexts.list': { input: z.strictObject({}), output: z.object({ contexts: z.array(out.contextSummary) }) },
  'contexts.create': { input: z.strictObject({ name: z.string().max(63).optional() }), output: out.contextRow },
  'contexts.fork': { input: z.strictObject({ context: id, name: z.string().max(63).optional() }), output: out.contextRow },
  'contexts.thread': { input: z.strictObject({ context: id }), output: loose({ context: out.contextRow, items: z.array(out.threadItem) }) },
  'contexts.export': { input: z.strictObject({ context: id }), output: loose({ schema: z.literal('missive.context_export.v1') }) },
  'webhook.start': { input: z.strictObject({ port: z.number().int().min(0).max(65535).optional() }), output: out.webhookStats },
  'webhook.stop': { input: z.strictObject({}), output: out.webhookStats },
  'webhook.status': { input: z.strictObject({}), output: out.webhookStats },
  /** The newest push callbacks the journal holds (any receiver of this profile), newest first: accepted and refused. */
  'webhook.callbacks': {
    input: z.strictObject({ limit: z.number().int().min(1).max(500).optional() }),
    output: z.object({ callbacks: z.array(out.receivedCallback) }),
  },
  'auth.list': { input: z.strictObject({}), output: out.authList },
  'auth.add': { input: authRefInput, output: out.authList.shape.auth_refs.element },
  /** Replaces a local auth ref's settings under the same name (agents using it follow). */
  'auth.update': { input: authRefInput, output: out.authList.shape.auth_refs.element },
  /** A shared store: on this host, the ref's secret comes from this env var or keyring entry (the shared row never decides). */
  'auth.bind': {
    input: z.strictObject({
      name: alias,
      env: z.string().min(1).max(255).optional(),
      keyringService: z.string().min(1).max(255).optional(),
      keyringAccount: z.string().min(1).max(255).optional(),
    }),
    output: out.authList.shape.auth_refs.element,
  },
  'auth.remove': {
    input: z.strictObject({ name: alias }),
    output: loose({ name: z.string(), removed: z.literal(true), unlinked_agents: z.array(z.string()) }),
  },
  /** The secret goes to the keyring (or, without one, this session's memory: `session_only`); nothing of it comes back. */
  'auth.setSecret': { input: z.strictObject({ name: alias, secret: z.string().min(1).max(16_384) }), output: ok.extend({ session_only: z.boolean() }) },
  'auth.deleteSecret': { input: z.strictObject({ name: alias }), output: ok },
  /** Runs the flow of an auth ref, or of an agent's auth ref (device code: `auth.deviceCode` shows the code meanwhile). */
  'auth.login': { input: z.strictObject({ target: alias }), output: out.loginResult },
  'auth.status': { input: z.strictObject({ target: alias.optional() }), output: z.object({ auth_refs: z.array(out.authStatus) }) },
  'auth.logout': {
    input: z.strictObject({ target: alias }),
    output: loose({ name: z.string(), dropped: z.boolean(), memory: z.boolean(), keyring: z.boolean() }),
  },
  'dialogs.chooseDirectory': { input: z.strictObject({ title: z.string().max(200).optional() }), output: z.object({ path: z.string().nullable() }) },
  'demo.start': { input: z.strictObject({}), output: z.object({ agents: z.array(z.object({ alias: z.string(), base_url: z.string() })) }) },
} as const;

/** Channels whose progress is pushed to the renderer while the call runs. */
export const EVENT_CHANNELS = {
  /** One applied stream event; `parts` are the parts it carried (a chunk's, a message's; file bytes as their size), `artifact_name` a chunk's artifact name. */
  'messages.stream.event': loose({
    sequence: z.number(),
    variant: z.string(),
    parts: z.array(z.record(z.string(), z.unknown())).optional(),
    artifact_name: z.string().nullable().optional(),
  }),
  'collectives.member': member,
  'webhook.arrival': loose({ status: z.number(), event_type: z.string() }),
  /** A device-code login waits for the user: open verification_uri and enter user_code. */
  'auth.deviceCode': loose({
    auth_ref: z.string(),
    verification_uri: z.string(),
    verification_uri_complete: z.string().nullable(),
    user_code: z.string(),
    expires_in: z.number(),
  }),
  /** Something the user should know that stopped nothing (the core's warnings): shown as a dismissible notice. */
  'app.notice': loose({ level: z.enum(['info', 'warning']), message: z.string() }),
  /** New journal rows, batched (at most 1000 per tick). */
  'events.appended': z.object({ events: z.array(loose({ sequence: z.number(), type: z.string() })) }),
} as const;

export type Channel = keyof typeof CHANNELS;
export type EventChannel = keyof typeof EVENT_CHANNELS;
export type ChannelInput<C extends Channel> = z.input<(typeof CHANNELS)[C]['input']>;
export type ChannelOutput<C extends Channel> = z.output<(typeof CHANNELS)[C]['output']>;
export type EventPayload<E extends EventChannel> = z.output<(typeof EVENT_CHANNELS)[E]>;

/** The same error report the CLI prints; a failed messages.send|stream with `wire: true` also carries its exchanges. */
export const errorReport = z.object({
  code: z.string(),
  category: z.string(),
  message: z.string(),
  exit_code: z.number(),
  help: z.string().optional(),
  /** The window's help where `help` names CLI commands, and the action it offers (shared/errors.ts `GuiHelp`). */
  gui_help: z.string().optional(),
  gui_action: z
    .discriminatedUnion('kind', [
      z.object({ kind: z.literal('set-secret'), auth_ref: z.string() }),
      z.object({ kind: z.literal('log-in'), target: z.string() }),
    ])
    .optional(),
  wire: z.array(wireExchange).optional(),
});
export type IpcError = z.output<typeof errorReport>;
export type IpcResult<C extends Channel> = { ok: true; data: ChannelOutput<C> } | { ok: false; error: IpcError };

/** The only names the transport itself uses. */
export const IPC_INVOKE = 'missive:invoke';
export const IPC_EVENT = 'missive:event';

export const isChannel = (name: unknown): name is Channel => typeof name === 'string' && Object.hasOwn(CHANNELS, name);

/** What preload exposes as `window.missive`. */
export interface MissiveBridge {
  invoke<C extends Channel>(channel: C, input: ChannelInput<C>): Promise<IpcResult<C>>;
  on<E extends EventChannel>(channel: E, listener: (payload: EventPayload<E>) => void): () => void;
}
