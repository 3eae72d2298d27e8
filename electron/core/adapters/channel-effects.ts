/**
 * Which channels of the IPC contract only read (running one twice is harmless) and which have effects outside the
 * call (a message reaches an agent, the registry or a group changes, a secret is stored, files are written). `adapter
 * file-drop` uses it after a crash: a frame claimed by a dead adapter is run again only when it is 'read'; an 'effect'
 * frame may already have happened, so it is answered with an `interrupted` error instead. Exhaustive over the
 * contract's Channel type: a new channel does not compile until it is classified here.
 */
import type { Channel } from '../../../shared/ipc/contract.js';

export type ChannelEffect = 'read' | 'effect';

export const CHANNEL_EFFECTS: Readonly<Record<Channel, ChannelEffect>> = {
  'app.info': 'read',
  'agents.list': 'read',
  'agents.add': 'effect',
  'agents.set': 'effect',
  'agents.rawCard': 'read',
  'agents.remove': 'effect',
  'agents.trust': 'effect',
  // Fetches the card again at most (a conditional GET) and caches it: safe to repeat.
  'agents.inspect': 'read',
  'agents.refreshAll': 'read',
  'agents.health': 'read',
  // Sends messages to the agent for every operation its card advertises.
  'agents.conformance': 'effect',
  'messages.send': 'effect',
  'messages.stream': 'effect',
  'requests.preview': 'read',
  'history.list': 'read',
  'history.get': 'read',
  'groups.list': 'read',
  'groups.show': 'read',
  'groups.create': 'effect',
  'groups.addMember': 'effect',
  'groups.removeMember': 'effect',
  'groups.update': 'effect',
  'groups.delete': 'effect',
  'collectives.bcast': 'effect',
  // GetTask until a quorum: reads only.
  'collectives.barrier': 'read',
  'collectives.gather': 'read',
  // Reads the journal only (journals nothing, unlike gather).
  'collectives.answers': 'read',
  // May send the members' outputs to a reducer agent.
  'collectives.reduce': 'effect',
  'collectives.round': 'effect',
  'tasks.list': 'read',
  'tasks.get': 'read',
  'tasks.cancel': 'effect',
  'tasks.wait': 'read',
  // Asks the agent (GetTask or SubscribeToTask) and journals what it says, as tasks.get and tasks.wait do.
  'tasks.follow': 'read',
  'artifacts.show': 'read',
  // Writes files (and refuses to overwrite them without force): not blindly repeatable.
  'artifacts.export': 'effect',
  'events.query': 'read',
  'contexts.list': 'read',
  'contexts.create': 'effect',
  'contexts.fork': 'effect',
  'contexts.thread': 'read',
  'contexts.export': 'read',
  'webhook.start': 'effect',
  'webhook.stop': 'effect',
  'webhook.status': 'read',
  'webhook.callbacks': 'read',
  'auth.list': 'read',
  'auth.add': 'effect',
  'auth.update': 'effect',
  'auth.bind': 'effect',
  'auth.remove': 'effect',
  'auth.setSecret': 'effect',
  'auth.deleteSecret': 'effect',
  'auth.login': 'effect',
  'auth.status': 'read',
  'auth.logout': 'effect',
  'dialogs.chooseDirectory': 'read',
  'demo.start': 'effect',
};

/** The effect class of a channel name; unknown names count as 'read' (they are answered with an error, nothing runs). */
export function channelEffect(channel: string): ChannelEffect {
  return Object.hasOwn(CHANNEL_EFFECTS, channel) ? CHANNEL_EFFECTS[channel as Channel] : 'read';
}

/**
 * Channels whose input holds a secret: `adapter file-drop` deletes such an input once answered instead of archiving
 * it, so the secret does not stay on disk in `--processed` or `--error-dir`.
 */
export const SECRET_INPUT_CHANNELS: ReadonlySet<string> = new Set<Channel>(['auth.setSecret']);
