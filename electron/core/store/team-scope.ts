/**
 * What runs on a shared PostgreSQL store so far (team mode): the registry (agents and their cards, groups, auth refs),
 * the journal's reads, contexts and the request history, `send`, `stream` and the collectives and the tasks they
 * leave, `events replay` and `diff` (which read them back), the webhook receiver (a pool of them on one journal), and
 * the shared job queue (every kind of job, gateways).
 * Every other command and IPC channel refuses a PostgreSQL store before it does anything (no request leaves, nothing
 * is written anywhere) with `config::store_unsupported`; `core.store()`, the synchronous SQLite handle those services
 * use, refuses it too, as the backstop.
 */
import { configError, type MissiveError } from '../../../shared/errors.js';

/** CLI commands as "<group> <command>" (a whole group as "<group> *", a subgroup as "<group> <sub> *"), and single-word commands. */
const TEAM_COMMANDS: ReadonlySet<string> = new Set([
  'agent add',
  'agent list',
  'agent show',
  'agent remove',
  'agent rename',
  'agent set',
  'agent inspect',
  'agent refresh',
  'agent capabilities',
  'agent trust',
  'send',
  'stream',
  'task get',
  'task list',
  'task cancel',
  'task wait',
  'task artifact *',
  'push *',
  'job start *',
  'bcast',
  'scatter',
  'barrier',
  'gather',
  'reduce',
  'round',
  'job list',
  'job show',
  'job cancel',
  'job wait',
  'gateway *',
  'webhook run',
  'adapter *',
  'conformance',
  'group *',
  'route *',
  'auth *',
  'events list',
  'events tail',
  'events export',
  'events replay',
  'diff',
  'context *',
  'history *',
  'logs',
  'config *',
  'doctor',
  'completion *',
]);

/** IPC channels (the desktop window, the web console, adapters). */
const TEAM_CHANNELS: ReadonlySet<string> = new Set([
  'app.info',
  'agents.list',
  'agents.add',
  'agents.set',
  'agents.remove',
  'agents.inspect',
  'agents.rawCard',
  'agents.health',
  'agents.refreshAll',
  'agents.conformance',
  'agents.trust',
  'messages.send',
  'messages.stream',
  'collectives.bcast',
  'collectives.barrier',
  'collectives.gather',
  'collectives.reduce',
  'collectives.round',
  'requests.preview',
  'tasks.list',
  'tasks.get',
  'tasks.cancel',
  'tasks.wait',
  'artifacts.show',
  'artifacts.export',
  'groups.list',
  'groups.show',
  'groups.create',
  'groups.addMember',
  'groups.removeMember',
  'groups.update',
  'groups.delete',
  'auth.list',
  'auth.add',
  'auth.bind',
  'auth.update',
  'auth.remove',
  'auth.setSecret',
  'auth.deleteSecret',
  'auth.login',
  'auth.status',
  'auth.logout',
  'events.query',
  'contexts.list',
  'contexts.create',
  'contexts.fork',
  'contexts.thread',
  'contexts.export',
  'history.list',
  'history.get',
  'webhook.start',
  'webhook.stop',
  'webhook.status',
  'dialogs.chooseDirectory',
]);

export const runsOnSharedStore = {
  command: (path: readonly string[]): boolean =>
    path.length === 0 || TEAM_COMMANDS.has(path.join(' ')) || TEAM_COMMANDS.has(`${path[0]} *`) || (path.length > 2 && TEAM_COMMANDS.has(`${path.slice(0, -1).join(' ')} *`)),
  channel: (channel: string): boolean => TEAM_CHANNELS.has(channel),
};

/** The refusal of a service that still needs the profile's local SQLite store. */
export function storeUnsupported(display: string, what = 'this command'): MissiveError {
  return configError(
    'store_unsupported',
    `${what} does not run on a PostgreSQL store yet (${display}): team mode covers every command but 'demo', whose agents live in one process on one host`,
    "Unset MISSIVE_STORE_URL (and [store] url, --store) to use the profile's local SQLite store; docs/team.md lists what runs where.",
  );
}
