/** The read/effect classification file-drop recovery relies on: every contract channel, and the obvious ones right. */
import { describe, expect, it } from 'vitest';
import { CHANNELS } from '../../shared/ipc/contract.js';
import { CHANNEL_EFFECTS, channelEffect } from '../../electron/core/adapters/channel-effects.js';

describe('channel effects', () => {
  it('classifies exactly the contract’s channels', () => {
    expect(Object.keys(CHANNEL_EFFECTS).sort()).toEqual(Object.keys(CHANNELS).sort());
    expect(new Set(Object.values(CHANNEL_EFFECTS))).toEqual(new Set(['read', 'effect']));
  });

  it('never re-runs what reaches an agent or changes state; re-runs pure reads', () => {
    for (const channel of [
      'messages.send',
      'messages.stream',
      'collectives.bcast',
      'collectives.round',
      'collectives.reduce',
      'tasks.cancel',
      'agents.add',
      'agents.remove',
      'groups.create',
      'auth.setSecret',
      'artifacts.export',
      'agents.conformance',
    ]) {
      expect(channelEffect(channel), channel).toBe('effect');
    }
    for (const channel of ['app.info', 'agents.list', 'history.list', 'tasks.get', 'tasks.list', 'events.query', 'contexts.thread', 'collectives.gather']) {
      expect(channelEffect(channel), channel).toBe('read');
    }
  });

  it('an unknown channel name is a read (it is answered with an error, nothing runs)', () => {
    expect(channelEffect('no.such')).toBe('read');
    expect(channelEffect('constructor')).toBe('read');
  });
});
