/**
 * The store as the services see it, whichever engine holds it: asynchronous repositories, and the store's own commit
 * policy. SQLite (the embedded default, one file per profile) answers the repositories synchronously underneath
 * (sqlite/storage.ts); PostgreSQL (team mode: one database shared by many hosts, a schema per profile) answers them
 * through a pool (postgres/storage.ts). Both keep the same rows.
 *
 * How writes commit is the engine's decision, never the caller's: a caller says what it writes (a generator of steps,
 * steps.ts) and whether it may share a commit (`WriteMode`); SQLite groups commits per loop turn and coalesces a
 * stream's row updates per tick, PostgreSQL gives each write its own transaction. Nothing outside store/ names an
 * engine, a connection or a transaction discipline.
 */
import type { AgentRow, AgentSource, CardKeys, ClientTlsPaths, NewAgent } from './rows/agents.js';
import type { AuthRefRow } from './rows/auth-refs.js';
import type { EventRow, NewEvent } from './rows/events.js';
import type { JournalQuery } from './rows/journal-query.js';
import type { GroupRow, MemberRow } from './rows/groups.js';
import type { CallEventType, JournalRow, MessageRow, StartsQuery, ThreadArtifactRow, ThreadMessageRow } from './rows/history.js';
import type {
  ArtifactSummary,
  ArtifactHead,
  ArtifactWrite,
  NewMessage,
  StoredArtifact,
  StoredMessage,
  StoredTask,
  TaskQuery,
  TaskStatusWrite,
  TaskUpsert,
} from './rows/conversation.js';
import type { ContextRow, ContextRows, ContextSummary } from './rows/contexts.js';
import type { PushConfigRow } from './rows/push-configs.js';
import type { MessageRecord } from './rows/collective-records.js';
import type { FollowKind, JobRow, JobState, NewOperatorJob, StoredJob } from './rows/gateway-jobs.js';

export type StoreKind = 'sqlite' | 'postgres';

/** One conversation repository call, a journal append, or a job repository call, as a step of a write or read sequence (steps.ts). */
export type Step =
  | { [K in keyof ConversationRepository]: { op: K; args: Parameters<ConversationRepository[K]> } }[keyof ConversationRepository]
  | { op: 'append'; args: [event: NewEvent, knownSecrets?: readonly string[]] }
  | { [K in JobStepMethod]: { op: 'jobs'; method: K; args: Parameters<JobRepository[K]> } }[JobStepMethod];

/** The job repository's writes of one job that a sequence may hold (a job's phase commits with what it wrote: jobs/run.ts). */
export type JobStepMethod = 'finish' | 'retry' | 'setTargetTask' | 'markDispatched' | 'clearDispatched' | 'insertOperators';

/** A sequence of steps that ends with `T`: what the services write or read, with no SQL and no engine in sight. */
export type Steps<T> = Generator<Step, T, unknown>;

/**
 * Whether a write may share a commit with others (its promise settles once it has committed, either way):
 * - `now`: a transaction of its own;
 * - `group`: may share the commit of the writes of this loop turn (a fan-out's hundreds of answers: SQLite's group
 *   commit, one commit for them all);
 * - `burst`: may share a commit with the writes that keep arriving over the next few turns (a webhook receiver's
 *   callbacks, each posted once the previous got its 202). `make` may run twice (a failed group goes again, each write
 *   on its own), so it must touch nothing but the store.
 * PostgreSQL gives every write a transaction of its own (its hosts commit independently).
 */
export type WriteMode = 'now' | 'group' | 'burst';

/**
 * Values kept for the rest of a tick of updates: the status updates of a task and the chunks appended to an artifact
 * within one tick write the task's and the artifact's row once, when the tick commits. SQLite's tick is a savepoint
 * per update in a transaction committed as the tick of network data ends (sqlite/update-sink.ts); PostgreSQL's holds
 * the tick's journal rows, chunks and statuses in memory and writes each kind with one statement before any other
 * statement and when the tick ends (postgres/update-ticks.ts).
 */
export interface TickValues {
  /**
   * Journals an update with the tick. SQLite: a narrow row (indexed by task only) recorded in the tick's run of its
   * agent and context, which the tick writes when it commits (journal_runs: how the journal's other filters find it).
   * PostgreSQL: a whole row, written with the tick's others in one insert. A dedupe key seen before inserts nothing.
   */
  appendUpdate(event: NewEvent, knownSecrets?: readonly string[]): void;
  /**
   * Appends a chunk to an artifact the tick holds (or reads now): its parts join the tick's one chunk row of the
   * artifact, saved when the tick commits. Its new version, or null when there is no such artifact to append to.
   */
  appendChunk(write: ArtifactWrite): Steps<number | null>;
  /** The task's status write to save when the tick commits (the last one set wins): `save` writes it. */
  setStatus(write: TaskStatusWrite, save: (write: TaskStatusWrite) => Steps<void>): void;
  /** Saves, and forgets, what the tick holds for a task's row or an artifact's, before a write that reads it. */
  settleTask(taskId: string): void;
  settleArtifact(taskId: string, artifactId: string): void;
}

/**
 * Where a sequence of updates goes (a stream's events, a task subscription's): each applied at once and in order,
 * committed with what the same tick of network data brings (SQLite and PostgreSQL alike: a commit, and on PostgreSQL
 * a round trip, per event cost more than the event at stream rates).
 */
export interface UpdateSink {
  /** Runs `make(tick)`'s steps; a failure leaves nothing of them. */
  apply<T>(make: (tick: TickValues | undefined) => Steps<T>): Promise<T>;
  /**
   * Commits what is still open: call when the sequence ends, and before journaling a failure. Rejects (once) when a
   * tick holding this sink's updates could not commit: `storage::tick_rolled_back`, or on PostgreSQL
   * `storage::store_unreachable` when the store went away.
   */
  flush(): Promise<void>;
  /** Whether the store is still open to write in (the app may close it under a long stream). */
  open(): boolean;
}

/** How a gateway holds its place for a profile: SQLite's lease (one gateway), or a row of PostgreSQL's pool. */
export interface GatewayMembership {
  readonly row: GatewayRow;
  /** The lease this gateway took over (SQLite: an expired lease, or one whose process is gone), if any. */
  readonly takenFrom: GatewayRow | null;
  /** Jobs left running by a dead gateway, made due again as it joined (SQLite: the lease is this gateway's alone). */
  readonly reclaimed: number;
  /** Extends the lease or the pool row; false when another gateway took the profile's lease over (SQLite). */
  renew(): Promise<boolean>;
  release(): Promise<void>;
}

/** The gateways of a profile as `gateway status` lists them: SQLite's one lease (or none), or PostgreSQL's pool. */
export type GatewayList = { kind: 'lease'; lease: GatewayRow | null } | { kind: 'pool'; rows: GatewayRow[] };

export interface AgentRepository {
  get(alias: string): Promise<AgentRow | undefined>;
  /** Every agent, in alias order. */
  list(): Promise<AgentRow[]>;
  /** Where an agent's row came from; undefined when there is no such agent. */
  source(alias: string): Promise<AgentSource | undefined>;
  /** The aliases of the agents seeded from a config, in alias order. */
  seededAliases(): Promise<string[]>;
  insert(agent: NewAgent): Promise<void>;
  /** Updates a config-seeded agent's registry fields; its cached card is dropped only when the base URL changes. */
  updateSeeded(agent: NewAgent): Promise<void>;
  /** Turns a config-seeded agent no longer in the config into an ordinary local one. */
  releaseSeeded(alias: string): Promise<void>;
  remove(alias: string): Promise<boolean>;
  rename(from: string, to: string): Promise<void>;
  setAuthRef(alias: string, authRefName: string | null): Promise<void>;
  setClientTls(alias: string, clientTls: ClientTlsPaths | null): Promise<void>;
  setCardKeys(alias: string, cardKeys: CardKeys | null): Promise<void>;
  /** Caches a fetched card (and its validators) on the agent's row, fetched and validated now. */
  storeCard(alias: string, card: { json: unknown; url: string; etag: string | null; lastModified: string | null }): Promise<void>;
  /** The cached card was revalidated (304 Not Modified) now. */
  markCardValidated(alias: string): Promise<void>;
  /** Points a local agent at another base URL and drops its cached card (the demo's agents, started on new ports). */
  repoint(alias: string, baseUrl: string): Promise<void>;
  /** How many journaled tasks point at this agent (they keep it from being removed). */
  countTasks(alias: string): Promise<number>;
  /** The aliases of the agents that authenticate with each auth ref, in alias order. */
  aliasesByAuthRef(): Promise<Map<string, string[]>>;
}

/** Where secrets live (env var names, keyring coordinates, flows' settings), never the secrets. */
export interface AuthRefRepository {
  get(name: string): Promise<AuthRefRow | undefined>;
  /** Every auth ref, in name order. */
  list(): Promise<AuthRefRow[]>;
  upsert(ref: AuthRefRow): Promise<void>;
  remove(name: string): Promise<boolean>;
}

export interface GroupRepository {
  insert(group: { name: string; routingPolicy: string; notes: string | null; metadata: Record<string, unknown> }): Promise<void>;
  updateSettings(name: string, settings: { routingPolicy: string; notes: string | null }): Promise<void>;
  updateMetadata(name: string, metadata: Record<string, unknown>): Promise<void>;
  get(name: string): Promise<GroupRow | undefined>;
  /** Every group with its member count, in name order. */
  list(): Promise<Array<GroupRow & { members: number }>>;
  remove(name: string): Promise<boolean>;
  /** A group's members in rank order. */
  members(name: string): Promise<MemberRow[]>;
  /** Inserts or moves a member to `rank`. */
  upsertMember(member: { group: string; alias: string; rank: number; tags?: string[]; weight?: number }): Promise<void>;
  removeMember(group: string, alias: string): Promise<boolean>;
}

/** Appends to the event journal (payload and metadata redacted first, with `knownSecrets` too). */
export interface JournalWriter {
  /** The event's sequence and id, or null when its dedupe key was seen. */
  append(event: NewEvent, knownSecrets?: readonly string[]): Promise<{ sequence: number; eventId: string } | null>;
}

/**
 * A place in the journal to read on from (`events tail`, `events export`): made, and read, only by the reader that
 * gave it. SQLite's is the last sequence read. PostgreSQL's sequences are not commit-ordered (two hosts' transactions
 * commit out of sequence order), so there it is the snapshot of what was read (postgres/repos/journal-reads.ts).
 */
export type JournalCursor = string & { readonly __journalCursor: never };

/** The journal's filters without a cursor or a page size (repos/journal-query.ts). */
export type JournalFilters = Omit<JournalQuery, 'afterSequence' | 'beforeSequence' | 'fromSequence' | 'limit'>;

export interface JournalPage {
  /** Oldest first (in commit order on PostgreSQL, where sequences may then come out of order). */
  events: EventRow[];
  /** Where the next read goes on from. */
  cursor: JournalCursor;
  /** The page was full: more may be waiting right now. */
  more: boolean;
}

/** Reads the event journal (`events list|tail|export`, `logs --source event-journal`). Rows were redacted on write. */
export interface JournalReader {
  /** The newest `limit` (default 50) events that match, oldest first. */
  list(query: JournalFilters & { limit?: number }): Promise<EventRow[]>;
  /** The journal's end now: reading on from here gives only the events committed later (`events tail`). */
  end(): Promise<JournalCursor>;
  /** Before the first event (`events export`). */
  start(): JournalCursor;
  /** The next `limit` matching events after `cursor`, never one twice nor one skipped across calls. */
  after(query: JournalFilters, cursor: JournalCursor, limit: number): Promise<JournalPage>;
  /**
   * One bounded page for a caller that must not be held long (the desktop's `events.query`): at most `limit` matches,
   * oldest first, walking back from `beforeSequence` (default: the journal's end) or forward from `afterSequence`.
   * SQLite also stops scanning after a few milliseconds' work (sqlite/journal-reads.ts), so a page may hold fewer
   * rows, even none; `next` is then where the read goes on (absent: nothing more matches that way). PostgreSQL
   * refuses `afterSequence` (`config::store_unsupported`: its sequences are not commit-ordered; `after` is the way).
   */
  page(query: JournalFilters, from: JournalPageStart, limit: number): Promise<JournalWindow>;
}

/** Where a bounded page starts: below a sequence (walking back to older events) or above one (forward). */
export type JournalPageStart = { beforeSequence?: number; afterSequence?: undefined } | { afterSequence: number; beforeSequence?: undefined };

export interface JournalWindow {
  /** Oldest first. */
  events: EventRow[];
  /** The start of the next page in the same direction; absent when the read reached the end of the journal that way. */
  next?: { beforeSequence: number } | { afterSequence: number };
}

/** Each agent's last calls as the journal holds them (agent health), read from idx_events_calls on both engines. */
export interface CallEventReader {
  /** The newest event of each of `types` for each of `agents`, where there is one (in no particular order). */
  newest(agents: readonly string[], types: readonly CallEventType[]): Promise<JournalRow[]>;
}

/**
 * Contexts, messages, tasks and artifacts: what A2A exchanges leave (repos/conversation.ts and repos/contexts.ts hold
 * SQLite's statements and the row types; each method does what the SQLite function of the same name does).
 */
export interface ConversationRepository {
  /** Inserts the context row if it is new (the agent it was opened with, its metadata); an existing one is kept. */
  ensureContext(contextId: string, agentAlias: string | null, metadata?: Record<string, unknown>): Promise<void>;
  /** A task's messages are numbered (`ordinal`) in the insert: the next after the task's highest. */
  insertMessage(message: NewMessage): Promise<void>;
  linkMessageToContext(messageId: string, contextId: string): Promise<void>;
  linkMessageToTask(messageId: string, taskId: string, contextId: string | null): Promise<void>;
  getTask(taskId: string): Promise<StoredTask | undefined>;
  /** `updated_at` moves only when the state or the remote JSON changed. */
  upsertTask(task: TaskUpsert): Promise<void>;
  /** A new artifact, a new chunk (append) or new content (replace), each bumping the version; the stored version. */
  writeArtifact(artifact: ArtifactWrite): Promise<number>;
  /**
   * An artifact's head (version, header, kind), its row locked until the transaction ends (PostgreSQL); undefined when
   * there is none.
   */
  artifactHead(taskId: string, artifactId: string): Promise<ArtifactHead | undefined>;
  listArtifactsOfTask(taskId: string): Promise<ArtifactSummary[]>;
  /** Local tasks, most recently updated first (task id breaks ties). */
  listTasks(query: TaskQuery): Promise<StoredTask[]>;
  /** The request row sent under `messageId` (a job's dispatch mark): the task and context its answer gave it. */
  requestOf(messageId: string): Promise<{ task_id: string | null; context_id: string | null } | undefined>;
  getContext(contextId: string): Promise<ContextRow | undefined>;
  getContextByName(name: string): Promise<ContextRow | undefined>;
  /** A task row for a task known only by id (a push or a subscription came first); an existing row is kept. */
  ensurePlaceholderTask(taskId: string, agentAlias: string, contextId?: string | null): Promise<void>;
  /**
   * A status update of a task whose row exists: `status` replaced inside the stored task JSON (where it was, or last),
   * the state columns set as upsertTask sets them; false when there is no row (the caller upserts instead).
   */
  updateTaskStatus(write: TaskStatusWrite): Promise<boolean>;
  /** The last remote JSON stored for a task, or null when the task is unknown or has none. */
  getTaskJson(taskId: string): Promise<Record<string, unknown> | null>;
  /** Whether the journal holds an event with this dedupe key (a resumed subscription, a callback delivered twice). */
  hasEventKey(dedupeKey: string): Promise<boolean>;
  /** An artifact with its content, the parts of its chunks joined in order; undefined when there is none. */
  getArtifact(taskId: string, artifactId: string): Promise<StoredArtifact | undefined>;
  /** A member's latest task in a context: newest `updated_at`, then the smallest task id. */
  latestTaskOf(agentAlias: string, contextId: string): Promise<StoredTask | undefined>;
  /** The messages linked to a task other than requests (answers, and its updates from the journal), newest first. */
  responsesOfTask(taskId: string): Promise<StoredMessage[]>;
  /** Response messages of a context that belong to no task (direct Message answers, streamed or not), newest first, per agent. */
  directResponsesOf(agentAlias: string, contextId: string): Promise<StoredMessage[]>;
  /** Records a push config registered with an agent (its JSON redacted); one deleted before comes back. */
  upsertPushConfig(config: { id: string; agentAlias: string; taskId: string; url: string; redactedJson: unknown }): Promise<void>;
  markPushConfigDeleted(taskId: string, configId: string): Promise<void>;
  /** A task's push configs, deleted ones included (`deleted_at`), oldest first. */
  listPushConfigsOfTask(taskId: string): Promise<PushConfigRow[]>;
  /**
   * Every journal event of a context, oldest first (by sequence), read in pages of `page` (default 1000) until one
   * comes back short (`events replay`; repos/collective-records.ts).
   */
  contextJournal(contextId: string, page?: number): Promise<EventRow[]>;
  /** One message row by its local id, content and metadata parsed, or null (`events replay`). */
  getMessageRecord(messageId: string): Promise<MessageRecord | null>;
  /** The `local` rows of a context (reduce results), oldest first (`events replay`). */
  localMessagesOfContext(contextId: string): Promise<MessageRecord[]>;
}

/** One gateway as the pool lists it (`gateway status`): SQLite's single lease row, or a member of a PostgreSQL pool. */
export interface GatewayRow {
  holder: string;
  pid: number;
  host: string;
  started_at: string;
  renewed_at: string;
  expires_at: string;
}

/**
 * The gateways of a profile on a PostgreSQL store (postgres/pool-membership.ts): a pool, one row per running gateway (migration 0003), renewed while
 * it runs and deleted when it stops; a row whose expiry passed is a gateway that died or hung. (On SQLite one gateway
 * holds the profile by a lease instead: core/gateway/lease.ts.)
 */
export interface GatewayPoolRepository {
  /** Adds this gateway's row. */
  join(row: GatewayRow): Promise<void>;
  /** Extends `holder`'s row; false when it is gone (pruned as expired: the gateway must stop). */
  renew(holder: string, renewedAt: string, expiresAt: string): Promise<boolean>;
  leave(holder: string): Promise<void>;
  /** Every row, live or expired, oldest start first. */
  list(): Promise<GatewayRow[]>;
  /** Deletes the rows that expired before `before`; how many. */
  prune(before: string): Promise<number>;
}

/**
 * Durable gateway jobs (repos/gateway-jobs.ts holds SQLite's statements and the row types). Claims carry an expiry
 * (`locked_until`): a claim whose expiry passed is due again, whoever held it.
 */
export interface JobRepository {
  /** In-flight local tasks without an unfinished follow or operator job (its target, or the task its sent request got). */
  tasksNeedingJobs(): Promise<Array<{ task_id: string; agent_alias: string; context_id: string | null }>>;
  /** Queues a follow job (one per kind and task; a succeeded one is queued again). */
  queueFollow(job: { kind: FollowKind; taskId: string; agentAlias: string; contextId: string | null; maxAttempts: number }): Promise<void>;
  /**
   * Claims up to `limit` due jobs (queued or retrying whose time came by `dueBy`, default now; running whose claim
   * expired) for `owner` until
   * `lockedUntil`, oldest due first, and returns them as claimed (state running, attempts counted as claimJob does),
   * with their request and dispatch mark (an operator job runs from the claimed row: nothing more to read).
   * Two gateways claiming at once never get the same job: PostgreSQL skips the rows another claim holds
   * (FOR UPDATE SKIP LOCKED); SQLite claims in one IMMEDIATE transaction.
   */
  claimDue(owner: string, lockedUntil: string, limit: number, dueBy?: string): Promise<StoredJob[]>;
  /** Extends `owner`'s claim; false when the job is no longer its own running job (cancelled, or taken over). */
  renewClaim(jobId: string, owner: string, lockedUntil: string): Promise<boolean>;
  /**
   * Makes due now the running jobs `owner` still holds a claim on but no longer runs (not among `running`): their
   * execution ended when the store failed under it, so their claims would otherwise hold them until they expire.
   * How many.
   */
  releaseClaims(owner: string, running: readonly string[]): Promise<number>;
  /** `owner`, when given, must still hold the running job. */
  finish(jobId: string, state: 'succeeded' | 'failed' | 'cancelled', result: unknown, error?: string | null, owner?: string | null): Promise<boolean>;
  retry(jobId: string, retry: { error: string | null; backoffMs: number; nextRunAt: string; countAttempt: boolean }, owner?: string | null): Promise<boolean>;
  insertOperator(job: NewOperatorJob): Promise<void>;
  /** Many operator jobs in multi-row INSERTs (`job start --from-file`); one commit inside a transaction. */
  insertOperators(jobs: readonly NewOperatorJob[]): Promise<void>;
  /** Operator jobs whose id is `id` or starts with it (at most 2). */
  findOperator(id: string): Promise<StoredJob[]>;
  getOperator(jobId: string): Promise<StoredJob | undefined>;
  listOperator(options: { state?: JobState; limit: number }): Promise<Array<Omit<StoredJob, 'request_json'>>>;
  setTargetTask(jobId: string, taskId: string, contextId: string | null): Promise<void>;
  markDispatched(jobId: string, messageId?: string | null): Promise<void>;
  clearDispatched(jobId: string): Promise<void>;
  /** Cancels an unfinished job (`unclaimed`: only one no gateway holds now, queued or retrying); false when it was not. */
  cancel(jobId: string, options?: { unclaimed?: boolean }): Promise<boolean>;
  /** Those of `jobIds` that ended (succeeded, failed or cancelled), with their results. */
  endedAmong(jobIds: readonly string[]): Promise<StoredJob[]>;
  counts(): Promise<Partial<Record<JobState, number>>>;
  unfinished(): Promise<JobRow[]>;
}

/**
 * Local contexts (names, forks, closing) and the request history, as `context …` and `history …` read them from the
 * rows an exchange leaves (repos/contexts.ts and repos/history.ts hold SQLite's statements and the row types; each
 * method does what the SQLite function of the same name does). The two scans hand their rows to `visit` one by one, in
 * order, and stop when it returns false: a preview reads no further than it shows.
 */
export interface HistoryRepository {
  /** A new context row (a name taken, or an id known, is refused: `context_name_taken`, `context_exists`). */
  insertContext(context: { id: string; name: string | null; parent: string | null; metadata?: Record<string, unknown> }): Promise<void>;
  /** Names a context (a name another context holds is refused: `context_name_taken`). */
  renameContext(contextId: string, name: string | null): Promise<void>;
  closeContextRow(contextId: string): Promise<void>;
  /** The contexts, newest first, with their counts (messages as a thread shows them, tasks, events). */
  listContexts(limit: number): Promise<ContextSummary[]>;
  /** Every row linked to a context, for export (JSON columns parsed; its updates among the messages). */
  contextRows(contextId: string): Promise<ContextRows>;
  /** The first `limit` requests sent in a context, oldest first. */
  firstRequestsOfContext(contextId: string, limit: number): Promise<MessageRow[]>;
  /** A context's message rows and its updates (from the journal) in the order they were stored. */
  messagesOfContext(contextId: string): Promise<ThreadMessageRow[]>;
  /** The artifacts of a context (by their own context, or their task's), oldest first; parts are not read. */
  artifactsOfContext(contextId: string): Promise<ThreadArtifactRow[]>;
  /** The newest `limit` send / stream starts (older than `beforeSequence`), newest first. */
  listRequestStarts(query: StartsQuery): Promise<JournalRow[]>;
  /** The started, completed and failed events of these requests (by request message id), oldest first. */
  requestEvents(messageIds: readonly string[]): Promise<JournalRow[]>;
  /** At most two request message ids from `prefix` on, in order (`history show` by a prefix). */
  requestIdsByPrefix(prefix: string): Promise<string[]>;
  getMessageRow(messageId: string): Promise<MessageRow | undefined>;
  /** The first direct answer (a response row of no task) of `agent` stored after the request row `afterRow`. */
  firstDirectResponseAfter(agent: string, afterRow: number): Promise<MessageRow | undefined>;
  /**
   * The events a stream applied, in order, between its start and its end (`beforeSequence`, or the journal's end
   * while it runs), among at most `maxScanned` journal rows after the start.
   */
  scanStreamEvents(
    messageId: string,
    afterSequence: number,
    beforeSequence: number | null,
    maxScanned: number,
    visit: (event: JournalRow) => boolean | void,
  ): Promise<void>;
  /** A task's artifact parts chunk by chunk (artifact id, then chunk order; one artifact's only with `artifactId`), at most `maxChunks`. */
  scanArtifactChunks(
    taskId: string,
    maxChunks: number,
    artifactId: string | undefined,
    visit: (chunk: { artifactId: string; parts: unknown[] }) => boolean | void,
  ): Promise<void>;
}

/** What one transaction (or the store outside any) offers. */
export interface Repositories {
  readonly agents: AgentRepository;
  readonly authRefs: AuthRefRepository;
  readonly groups: GroupRepository;
  readonly journal: JournalWriter;
  readonly conversation: ConversationRepository;
  readonly jobs: JobRepository;
  /** Local contexts and the request history (`context …`, `history …`). */
  readonly history: HistoryRepository;
}

export interface Storage extends Repositories {
  readonly kind: StoreKind;
  /** Where the store is, fit to print: the SQLite file, or the PostgreSQL URL without its password, and the schema. */
  readonly location: string;
  /** Reads the journal outside any transaction (what a reader reads is committed). */
  readonly journalReads: JournalReader;
  /** Reads each agent's newest call events outside any transaction. */
  readonly callEvents: CallEventReader;
  /** `steps` that only read, outside any transaction (what they read is committed). */
  read<T>(steps: Steps<T>): Promise<T>;
  /** `make()`'s steps in one transaction (or a commit shared as `mode` allows); settles once committed. */
  /** `tick`: on SQLite, a `burst` write's (its updates narrow rows, their runs written with the burst); else none. */
  write<T>(make: (tick?: TickValues) => Steps<T>, mode?: WriteMode): Promise<T>;
  /** A sink for one sequence of updates (a stream's, a subscription's). */
  updates(): UpdateSink;
  /**
   * `fn` in one transaction: everything it does through `tx` commits together or not at all (it throws, nothing
   * stays). On SQLite it must not wait on anything but `tx` (it holds the file's write lock; a network call inside is
   * refused as a programming error); on PostgreSQL it holds one pooled connection.
   */
  transaction<T>(fn: (tx: Repositories) => Promise<T>): Promise<T>;
  /**
   * Takes this gateway's place for `profile`: SQLite's lease (of two gateways starting at once exactly one gets it; a
   * second throws `orchestration::gateway_running`), or a row of PostgreSQL's pool (gateways on many hosts share the
   * queue; what keeps two off one job is the claim, JobRepository.claimDue).
   */
  membership(options: { profile: string; holder: string; ttlMs: number }): Promise<GatewayMembership>;
  /** The gateways of `profile`, live or expired (`gateway status`). */
  gateways(profile: string): Promise<GatewayList>;
  /**
   * Wakes `listener` when a job is queued by any host (PostgreSQL: LISTEN/NOTIFY on the profile's channel), so an idle
   * gateway starts it at once instead of at its next scan. SQLite has nothing to listen to (one host, and the gateway
   * scans): it never calls the listener. Resolves to the function that stops listening.
   */
  onJobQueued(listener: () => void): Promise<() => Promise<void>>;
  /** Resolves when the store accepts writes now (a webhook receiver's /readyz); rejects with why not. */
  checkWritable(): Promise<void>;
  close(): Promise<void>;
}
