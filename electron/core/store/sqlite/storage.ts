/**
 * The storage interface over the embedded SQLite store: each call runs the synchronous repository function at once
 * and returns its settled promise, so a SQLite command costs what it did before the interface (no pool, no queue).
 *
 * The journal's modules (its writer, its readers) load on first use: they bring the row ids' UUIDv7, whose random
 * source is node:crypto, and `agent list` and the other reads of the registry need none of it (test/integration/
 * cli-start.test.ts). A transaction loads the writer before it begins, so its appends settle at once inside it.
 */
import type { Store } from '../store.js';
import type { Repositories, Storage } from '../storage.js';
import * as agents from '../repos/agents.js';
import * as authRefs from '../repos/auth-refs.js';
import * as contexts from '../repos/contexts.js';
import * as conversation from '../repos/conversation.js';
import * as jobs from '../repos/gateway-jobs.js';
import * as groups from '../repos/groups.js';
import * as pushConfigs from '../repos/push-configs.js';
import * as history from '../repos/history.js';
import type { JournalReader } from '../storage.js';
import { sequenceCursor } from './journal-cursor.js';

type EventsModule = typeof import('../repos/events.js');
let eventsModule: EventsModule | undefined;
const loadEvents = async (): Promise<EventsModule> => (eventsModule ??= await import('../repos/events.js'));
const loadRecords = () => import('../repos/collective-records.js');

/** `fn(db, ...args)` as an async method: what it throws becomes the rejection, as with PostgreSQL. */
const method =
  <A extends unknown[], R>(store: Store, fn: (db: Store['db'], ...args: A) => R) =>
  async (...args: A): Promise<R> =>
    fn(store.db, ...args);

function repositories(store: Store): Repositories {
  const m = <A extends unknown[], R>(fn: (db: Store['db'], ...args: A) => R) => method(store, fn);
  return {
    agents: {
      get: m(agents.getAgent),
      list: m(agents.listAgents),
      source: m(agents.agentSource),
      seededAliases: m(agents.listSeededAliases),
      insert: m(agents.insertAgent),
      updateSeeded: m(agents.updateSeededAgent),
      releaseSeeded: m(agents.releaseSeededAgent),
      remove: m(agents.deleteAgent),
      rename: m(agents.renameAgent),
      setAuthRef: m(agents.setAuthRefName),
      setClientTls: m(agents.setClientTls),
      setCardKeys: m(agents.setCardKeys),
      storeCard: m(agents.storeCard),
      markCardValidated: m(agents.markCardValidated),
      countTasks: m(agents.countAgentTasks),
      aliasesByAuthRef: m(agents.agentAliasesByAuthRef),
    },
    authRefs: {
      get: m(authRefs.getAuthRef),
      list: m(authRefs.listAuthRefs),
      upsert: m(authRefs.upsertAuthRef),
      remove: m(authRefs.deleteAuthRef),
    },
    groups: {
      insert: m(groups.insertGroup),
      updateSettings: m(groups.updateGroupSettings),
      updateMetadata: m(groups.updateGroupMetadata),
      get: m(groups.getGroup),
      list: m(groups.listGroups),
      remove: m(groups.deleteGroup),
      members: m(groups.listMembers),
      upsertMember: m(groups.upsertMember),
      removeMember: m(groups.removeMember),
    },
    journal: {
      // Loaded already inside a transaction (see `transaction`): nothing is awaited between BEGIN and COMMIT but this.
      append: async (event, knownSecrets) => (eventsModule ?? (await loadEvents())).appendEvent(store.db, event, knownSecrets),
    },
    jobs: {
      tasksNeedingJobs: m(jobs.tasksNeedingJobs),
      queueFollow: m(jobs.queueJob),
      claimDue: m(jobs.claimDueJobs),
      renewClaim: m(jobs.renewClaim),
      finish: m(jobs.finishJob),
      retry: m(jobs.retryJob),
      insertOperator: m(jobs.insertOperatorJob),
      findOperator: m(jobs.findOperatorJobs),
      getOperator: m(jobs.getOperatorJob),
      listOperator: m(jobs.listOperatorJobs),
      setTargetTask: m(jobs.setTargetTask),
      markDispatched: m(jobs.markDispatched),
      clearDispatched: m(jobs.clearDispatched),
      cancel: m(jobs.cancelJobRow),
      endedAmong: m(jobs.endedJobsAmong),
      counts: m(jobs.jobCounts),
      unfinished: m(jobs.unfinishedJobs),
    },
    conversation: {
      ensureContext: m(conversation.ensureContext),
      insertMessage: m(conversation.insertMessage),
      linkMessageToContext: m(conversation.linkMessageToContext),
      linkMessageToTask: m(conversation.linkMessageToTask),
      getTask: m(conversation.getTask),
      upsertTask: m(conversation.upsertTask),
      writeArtifact: m(conversation.writeArtifact),
      listArtifactsOfTask: m(conversation.listArtifactsOfTask),
      listTasks: m(conversation.listTasks),
      requestOf: m(conversation.requestOf),
      getContext: m(contexts.getContext),
      getContextByName: m(contexts.getContextByName),
      ensurePlaceholderTask: m(conversation.ensurePlaceholderTask),
      updateTaskStatus: m(conversation.updateTaskStatus),
      getTaskJson: m(conversation.getTaskJson),
      // Loaded lazily as `journal.append` is (see there).
      hasEventKey: async (dedupeKey) => (eventsModule ?? (await loadEvents())).hasEventKey(store.db, dedupeKey),
      getArtifact: m(conversation.getArtifact),
      latestTaskOf: m(conversation.latestTaskOf),
      responsesOfTask: m(conversation.responsesOfTask),
      directResponsesOf: m(conversation.directResponsesOf),
      upsertPushConfig: m(pushConfigs.upsertPushConfig),
      markPushConfigDeleted: m(pushConfigs.markPushConfigDeleted),
      listPushConfigsOfTask: m(pushConfigs.listPushConfigsOfTask),
      // Loaded on first use: the journal's reads bring its module (see the module's comment).
      contextJournal: async (...args) => (await loadRecords()).contextJournal(store.db, ...args),
      getMessageRecord: async (...args) => (await loadRecords()).getMessageRecord(store.db, ...args),
      localMessagesOfContext: async (...args) => (await loadRecords()).localMessagesOfContext(store.db, ...args),
    },
    history: {
      insertContext: m(contexts.insertContext),
      renameContext: m(contexts.renameContext),
      closeContextRow: m(contexts.closeContextRow),
      listContexts: m(contexts.listContexts),
      contextRows: m(contexts.contextRows),
      firstRequestsOfContext: m(history.firstRequestsOfContext),
      messagesOfContext: m(history.messagesOfContext),
      artifactsOfContext: m(history.artifactsOfContext),
      listRequestStarts: m(history.listRequestStarts),
      requestEvents: m(history.requestEvents),
      requestIdsByPrefix: m(history.requestIdsByPrefix),
      getMessageRow: m(history.getMessageRow),
      firstDirectResponseAfter: m(history.firstDirectResponseAfter),
      // The generators' rows are visited synchronously, in one call: the statement is never left open across an await
      // (another call on the connection meanwhile would find it busy), and a visit that stops ends the read.
      scanStreamEvents: async (messageId, afterSequence, beforeSequence, maxScanned, visit) => {
        for (const event of history.streamEventsOf(store.db, messageId, afterSequence, beforeSequence, maxScanned)) if (visit(event) === false) break;
      },
      scanArtifactChunks: async (taskId, maxChunks, artifactId, visit) => {
        for (const chunk of history.artifactChunksOf(store.db, taskId, maxChunks, artifactId)) if (visit(chunk) === false) break;
      },
    },
  };
}

/** Throws unless the SQLite file accepts writes now: a write that changes nothing, in an IMMEDIATE transaction. */
export const checkWritable = (store: Store): void => void store.transaction(() => store.db.prepare(`UPDATE schema_migrations SET version = version WHERE 0`).run());

export function sqliteStorage(store: Store): Storage {
  const repos = repositories(store);
  return {
    kind: 'sqlite',
    location: store.path,
    journalReads: lazyJournalReads(store),
    callEvents: { newest: async (...args) => (await import('../repos/history.js')).newestCallEvents(store.db, ...args) },
    ...repos,
    transaction: async (fn) => {
      await loadEvents();
      return store.transactionAsync(() => fn(repos));
    },
    // One host, and its gateway scans the queue: nothing to listen to.
    onJobQueued: async () => async () => {},
    checkWritable: async () => checkWritable(store),
    // The store belongs to the core (it is closed with it): closing the interface leaves it open.
    close: async () => {},
  };
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
  };
}
