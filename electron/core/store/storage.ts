/**
 * The store as the services see it, whichever engine holds it: asynchronous repositories and transactions. SQLite
 * (the embedded default, one file per profile) answers them synchronously underneath (sqlite/storage.ts); PostgreSQL
 * (team mode: one database shared by many hosts, a schema per profile) answers them through a pool
 * (postgres/storage.ts). Both keep the same rows: the row types and their decoding are the SQLite repositories' own.
 *
 * Services ported to this interface run on both engines. A service that still takes the synchronous SQLite handle
 * (`core.store()`) refuses a PostgreSQL store with `config::store_unsupported` (context.ts) rather than write to the
 * wrong place.
 */
import type { AgentRow, AgentSource, CardKeys, ClientTlsPaths, NewAgent } from './repos/agents.js';
import type { AuthRefRow } from './repos/auth-refs.js';
import type { EventRow, NewEvent } from './repos/events.js';
import type { JournalQuery } from './repos/journal-query.js';
import type { GroupRow, MemberRow } from './repos/groups.js';
import type { CallEventType, JournalRow } from './repos/history.js';

export type StoreKind = 'sqlite' | 'postgres';

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
export type JournalFilters = Omit<JournalQuery, 'afterSequence' | 'limit'>;

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
}

/** Each agent's last calls as the journal holds them (agent health), read from idx_events_calls on both engines. */
export interface CallEventReader {
  /** The newest event of each of `types` for each of `agents`, where there is one (in no particular order). */
  newest(agents: readonly string[], types: readonly CallEventType[]): Promise<JournalRow[]>;
}

/** What one transaction (or the store outside any) offers. */
export interface Repositories {
  readonly agents: AgentRepository;
  readonly authRefs: AuthRefRepository;
  readonly groups: GroupRepository;
  readonly journal: JournalWriter;
}

export interface Storage extends Repositories {
  readonly kind: StoreKind;
  /** Where the store is, fit to print: the SQLite file, or the PostgreSQL URL without its password, and the schema. */
  readonly location: string;
  /** Reads the journal outside any transaction (what a reader reads is committed). */
  readonly journalReads: JournalReader;
  /** Reads each agent's newest call events outside any transaction. */
  readonly callEvents: CallEventReader;
  /**
   * `fn` in one transaction: everything it does through `tx` commits together or not at all (it throws, nothing
   * stays). On SQLite it must not wait on anything but `tx` (it holds the file's write lock; a network call inside is
   * refused as a programming error); on PostgreSQL it holds one pooled connection.
   */
  transaction<T>(fn: (tx: Repositories) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
