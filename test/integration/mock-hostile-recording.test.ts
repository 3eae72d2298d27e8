/**
 * A recording is data from outside: a `context export` file from anyone, or a context of a shared store that every
 * teammate writes. Replayed by `missive mock serve`, it decides what the mock answers and nothing else: the card's
 * interfaces are the mock's own, and the mock calls no URL the recording names (its card's, a file part's, a push
 * config's). A trap server on 127.0.0.1 counts what reaches it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { spawnMock } from '../support/mock-process.js';

let box: Sandbox;
let trap: Server;
let trapUrl: string;
let trapped = 0;

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, 0) + ms).toISOString();

/** A crafted export: a card and answers that name the trap everywhere a URL can go, and a reply "a year" later. */
function hostileExport(): Record<string, unknown> {
  const context = 'ctx-hostile';
  const year = 365 * 24 * 3600 * 1000;
  return {
    schema: 'missive.context_export.v1',
    exported_at: at(0),
    context: { context_id: context, agent_alias: 'hostile' },
    card: {
      name: 'hostile',
      description: 'a recording that names a trap',
      version: '1.0.0',
      url: `${trapUrl}/a2a/jsonrpc`,
      supportedInterfaces: [{ url: `${trapUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      additionalInterfaces: [{ url: `${trapUrl}/a2a/rest`, transport: 'HTTP+JSON' }],
      capabilities: { streaming: false, pushNotifications: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'trap', name: 'Trap', description: 'names a trap', tags: ['x'] }],
    },
    messages: [
      {
        message_id: 'r1',
        agent_alias: 'hostile',
        context_id: context,
        task_id: null,
        direction: 'request',
        role: 'user',
        content: {
          messageId: 'r1',
          contextId: context,
          role: 'ROLE_USER',
          parts: [{ text: 'hello' }],
          metadata: { pushNotificationConfig: { url: `${trapUrl}/push` } },
        },
        metadata: {},
        created_at: at(0),
      },
      {
        message_id: 'a1',
        agent_alias: 'hostile',
        context_id: context,
        task_id: null,
        direction: 'response',
        role: 'agent',
        content: { messageId: 'm-a1', role: 'ROLE_AGENT', parts: [{ text: 'see the file' }, { url: `${trapUrl}/file.txt`, mediaType: 'text/plain' }] },
        metadata: {},
        created_at: at(year),
      },
    ],
    tasks: [],
    artifacts: [],
    events: [
      {
        sequence: 1,
        event_id: 'e1',
        timestamp: at(0),
        event_type: 'a2a.send.started',
        agent_alias: 'hostile',
        context_id: context,
        task_id: null,
        payload: { message_id: 'r1' },
      },
      {
        sequence: 2,
        event_id: 'e2',
        timestamp: at(year),
        event_type: 'a2a.send.completed',
        agent_alias: 'hostile',
        context_id: context,
        task_id: null,
        payload: { message_id: 'r1', response_shape: 'message', response_message_id: 'a1' },
      },
    ],
  };
}

beforeAll(async () => {
  box = sandbox();
  trap = createServer((_req, res) => {
    trapped++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
  writeFileSync(join(box.home, 'hostile.json'), JSON.stringify(hostileExport()));
});
afterAll(async () => {
  await new Promise<void>((resolve) => trap.close(() => resolve()));
  box.dispose();
});

describe('mock serve of a hostile recording', () => {
  it('serves its own interfaces only and calls no URL the recording names; the answer is data', async () => {
    const mock = await spawnMock(box, [
      'mock',
      'serve',
      '--from-export',
      join(box.home, 'hostile.json'),
      '--latency',
      'none',
      '--bindings',
      'json-rpc,http+json',
    ]);
    try {
      const card = await (await fetch(mock.data.card_url, { headers: { 'A2A-Version': '1.0' } })).text();
      expect(card).not.toContain(trapUrl);
      expect(JSON.parse(card).supportedInterfaces.every((i: { url: string }) => i.url.startsWith(mock.data.url))).toBe(true);
      const sent = await box.run(['send', mock.data.url, 'hello', '--json']);
      expect(sent.code, sent.stderr).toBe(0);
      expect(sent.json().data.response.message.parts).toEqual([{ text: 'see the file' }, { url: `${trapUrl}/file.txt`, mediaType: 'text/plain' }]);
      expect(trapped).toBe(0);
    } finally {
      const done = await mock.stop();
      expect(done.code, done.stderr).toBe(0);
    }
    expect(trapped).toBe(0);
  });
});
