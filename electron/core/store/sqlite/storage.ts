/**
 * The storage interface over the embedded SQLite store: each call runs the synchronous repository function at once
 * and returns its settled promise, so a SQLite command costs what it did before the interface (no pool, no queue).
 *
 * The journal's modules (its writer, its readers) load on first use: they bring the row ids' UUIDv7, whose random
 * source is node:crypto, and `agent list` and the other reads of the registry need none of it (test/integration/
 * cli-start.test.ts). A transaction loads the writer before it begins, so its appends settle at once inside it.
 */
import type { Store } from '../store.js';
import type { Db } from '../db.js';
import type {
  AgentRepository,
  AuthRefRepository,
  ConversationRepository,
  GroupRepository,
  HistoryRepository,
  JobRepository,
  JournalReader,
  JournalWriter,
  Repositories,
  Storage,
  UpdateSink,
} from '../storage.js';
import { promised, type WithDb } from '../repository-forms.js';
import { sqliteAgents } from '../repos/agents.js';
import { sqliteAuthRefs } from '../repos/auth-refs.js';
import { sqliteConversation, type JournalBacked } from '../repos/conversation.js';
import { sqliteJobs } from '../repos/gateway-jobs.js';
import { sqliteGroups } from '../repos/groups.js';
import { sqliteHistory } from '../repos/history.js';
import type { RecordReads } from '../repos/collective-records.js';
import { sequenceCursor } from './journal-cursor.js';
import { commitGroups } from './commit-group.js';

type EventsModule = typeof import('../repos/journal.js');
let eventsModule: EventsModule | undefined;
const loadEvents = async (): Promise<EventsModule> => (eventsModule ??= await import('../repos/journal.js'));
type RecordsModule = typeof import('../repos/collective-records.js');
let recordsModule: RecordsModule | undefined;
const loadRecords = async (): Promise<RecordsModule> => (recordsModule ??= await import('../repos/collective-records.js'));
/**
 * The step driver and the update sink bring the journal's writer: loaded, like it, on first use, and not awaited again
 * once loaded (`writesModule ?? await loadWrites()`): a write then starts in the same turn it was asked for.
 */
type WritesModule = Pick<typeof import('./run-steps.js'), 'runStepsSync'> & Pick<typeof import('./update-sink.js'), 'sqliteUpdateSink' | 'burstTicks'>;
let writesModule: WritesModule | undefined;
const loadWrites = async (): Promise<WritesModule> => {
  await loadEvents();
  if (!writesModule) {
    const [{ runStepsSync }, { sqliteUpdateSink, burstTicks }] = await Promise.all([import('./run-steps.js'), import('./update-sink.js')]);
    writesModule = { runStepsSync, sqliteUpdateSink, burstTicks };
  }
  return writesModule;
};
const loadLease = () => import('./lease.js');

/**
 * `part`'s methods (`names`) as asynchronous ones, its module loaded on the first call (and not awaited again once it
 * has: an append inside a transaction settles at once).
 */
function promisedLater<R>(names: { readonly [K in keyof R]-?: true }, part: () => WithDb<R, Db> | undefined, load: () => Promise<unknown>, db: Db): R {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(names)) {
    out[name] = async (...args: unknown[]) => {
      const methods = (part() ?? (await load(), part()!)) as Record<string, (db: Db, ...args: unknown[]) => unknown>;
      return methods[name]!(db, ...args);
    };
  }
  return out as R;
}

function repositories(store: Store): Repositories {
  const db = store.db;
  return {
    agents: promised<AgentRepository, Db>(sqliteAgents, db),
    authRefs: promised<AuthRefRepository, Db>(sqliteAuthRefs, db),
    groups: promised<GroupRepository, Db>(sqliteGroups, db),
    // Loaded already inside a transaction (see `transaction`): nothing is awaited between BEGIN and COMMIT but this.
    journal: promisedLater<JournalWriter>({ append: true }, () => eventsModule?.sqliteJournal, loadEvents, db),
    jobs: promised<JobRepository, Db>(sqliteJobs, db),
    conversation: {
      ...promised<Omit<ConversationRepository, JournalBacked>, Db>(sqliteConversation, db),
      // Loaded lazily as `journal.append` is (see there).
      ...promisedLater<Pick<ConversationRepository, 'hasEventKey'>>({ hasEventKey: true }, () => eventsModule?.sqliteEventKeys, loadEvents, db),
      // Loaded on first use: the journal's reads bring its module (see the module's comment).
      ...promisedLater<Pick<ConversationRepository, RecordReads>>(
        { contextJournal: true, getMessageRecord: true, localMessagesOfContext: true },
        () => recordsModule?.sqliteRecords,
        loadRecords,
        db,
      ),
    },
    history: promised<HistoryRepository, Db>(sqliteHistory, db),
  };
}

/** Throws unless the SQLite file accepts writes now: a write that changes nothing, in an IMMEDIATE transaction. */
const checkWritable = (store: Store): void => void store.transaction(() => store.db.prepare(`UPDATE schema_migrations SET version = version WHERE 0`).run());

/** The SQLite store behind each Storage made here: for tests and benchmarks that read the file's rows (`sqliteStoreOf`). */
const stores = new WeakMap<Storage, Store>();

/** The SQLite store under `storage` (tests and benchmarks only: the services never see the engine). */
export function sqliteStoreOf(storage: Storage): Store {
  const store = stores.get(storage);
  if (!store) throw new Error(`not a SQLite store: ${storage.location}`);
  return store;
}

/** `store` as the storage interface; `owned`: closing the interface closes the store (the core's), else it stays open. */
export function sqliteStorage(store: Store, options: { owned?: boolean } = {}): Storage {
  const repos = repositories(store);
  // A receiver's callbacks: one group commit for a burst of them (commit-group.ts), made on the first such write.
  let burst: (<T>(fn: () => T) => Promise<T>) | undefined;
  let bursts: ReturnType<WritesModule['burstTicks']> | undefined;
  const storage: Storage = {
    kind: 'sqlite',
    location: store.path,
    journalReads: lazyJournalReads(store),
    callEvents: { newest: async (...args) => (await import('../repos/history.js')).newestCallEvents(store.db, ...args) },
    ...repos,
    read: async (steps) => (writesModule ?? (await loadWrites())).runStepsSync(store.db, steps),
    write: async (make, mode = 'now') => {
      const { runStepsSync, burstTicks } = writesModule ?? (await loadWrites());
      if (mode === 'group') return store.batch(() => runStepsSync(store.db, make()));
      if (mode === 'burst') {
        // A burst's updates are narrow rows, their runs written as its savepoint ends (update-sink.ts).
        const ticks = (bursts ??= burstTicks(store.db));
        return (burst ??= commitGroups((fn) => store.batch(() => ticks.within(fn))))(() => runStepsSync(store.db, make(ticks.tick())));
      }
      return store.transaction(() => runStepsSync(store.db, make()));
    },
    updates: (): UpdateSink => {
      let sink: UpdateSink | undefined;
      return {
        apply: async (make) => (sink ??= (writesModule ?? (await loadWrites())).sqliteUpdateSink(store)).apply(make),
        flush: async () => sink?.flush(),
        open: () => store.db.open,
      };
    },
    transaction: async (fn) => {
      if (!eventsModule) await loadEvents();
      return store.transactionAsync(() => fn(repos));
    },
    membership: async (options) => (await loadLease()).acquireLease(store, options),
    gateways: async (profile) => ({ kind: 'lease', lease: (await loadLease()).leaseOf(store, profile) }),
    // One host, and its gateway scans the queue: nothing to listen to.
    onJobQueued: async () => async () => {},
    checkWritable: async () => checkWritable(store),
    close: async () => {
      if (options.owned) store.close();
    },
  };
  stores.set(storage, store);
  return storage;
}

/** The journal's reader (journal-reads.ts), loaded when first read. */
function lazyJournalReads(store: Store): JournalReader {
  let reads: Promise<JournalReader> | undefined;
  const reader = () => (reads ??= import('./journal-reads.js').then((m) => m.sqliteJournalReads(store.db)));
  return {
    list: async (query) => (await reader()).list(query),
    end: async () => (await reader()).end(),
    start: () => sequenceCursor(0),
    after: async (query, cursor, limit) => (await reader()).after(query, cursor, limit),
    page: async (query, from, limit) => (await reader()).page(query, from, limit),
  };
}
