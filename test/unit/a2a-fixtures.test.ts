/** A2A v1.0 wire fixtures round-trip through the official SDK codecs, and through missive's card parser. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import {
  AgentCard,
  Artifact,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  type MessageFns,
} from '@a2a-js/sdk';
import { parseCard } from '../../electron/core/a2a/card.js';
import { negotiateInterface } from '../../electron/core/a2a/interfaces.js';
import { isVersionNotSupported } from '../../electron/core/a2a/http.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../fixtures/a2a/1.0/${name}`, import.meta.url), 'utf8'));

const codecs: Array<[string, MessageFns<any>]> = [
  ['agent-card.json', AgentCard],
  ['message-text.json', Message],
  ['message-data-file.json', Message],
  ['task-completed.json', Task],
  ['task-input-required.json', Task],
  ['stream-status-update.json', StreamResponse],
  ['stream-artifact-update.json', StreamResponse],
  ['stream-message.json', StreamResponse],
  ['push-config.json', TaskPushNotificationConfig],
  ['artifact.json', Artifact],
  ['stream-task.json', StreamResponse],
  ['send-message-request.json', SendMessageRequest],
  ['send-message-response-task.json', SendMessageResponse],
  ['list-tasks-response.json', ListTasksResponse],
];

const SHAPE_ONLY = [
  'agent-card-snake-case.json',
  'agent-card-no-interfaces.json',
  'jsonrpc-error-version-not-supported.json',
  'http-error-version-not-supported.json',
];

describe('A2A v1.0 fixtures', () => {
  it.each(codecs)('%s round-trips through the SDK codec unchanged', (name, codec) => {
    const raw = fixture(name);
    expect(codec.toJSON(codec.fromJSON(raw))).toStrictEqual(raw);
  });

  it('every fixture file is checked by this suite', () => {
    const files = readdirSync(new URL('../../fixtures/a2a/1.0/', import.meta.url)).filter((f) => f.endsWith('.json'));
    expect(files.sort()).toEqual([...codecs.map(([n]) => n), ...SHAPE_ONLY].sort());
  });

  it('decodes task states and roles as the spec names them', () => {
    const task = Task.toJSON(Task.fromJSON(fixture('task-input-required.json'))) as { status: { state: string; message: { role: string } } };
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(task.status.message.role).toBe('ROLE_AGENT');
  });

  it('parses the multi-interface card and prefers HTTP+JSON with its tenant', () => {
    const card = parseCard(fixture('agent-card.json'));
    expect(card.wire.supportedInterfaces).toHaveLength(2);
    const selected = negotiateInterface({ card, baseUrl: 'https://agent.example.org', interfaceUrls: {}, preference: ['http+json', 'json-rpc'] });
    expect(selected).toMatchObject({ binding: 'http+json', tenant: 'acme', url: 'https://agent.example.org/a2a/rest' });
  });

  it('normalises the snake_case and interface-less pre-release cards', () => {
    const snake = parseCard(fixture('agent-card-snake-case.json'));
    expect(snake.wire.supportedInterfaces[0]).toMatchObject({ protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    expect(snake.wire.capabilities?.pushNotifications).toBe(true);
    expect(AgentCard.toJSON(snake.typed)).toMatchObject({ name: 'Snake Agent', defaultInputModes: ['text/plain'] });
    const legacy = parseCard(fixture('agent-card-no-interfaces.json'));
    expect(legacy.interfacesMissing).toBe(true);
    expect(legacy.wire.supportedInterfaces).toEqual([]);
  });

  it('recognises VERSION_NOT_SUPPORTED in both error shapes', () => {
    expect(isVersionNotSupported(fixture('jsonrpc-error-version-not-supported.json'))).toBe(true);
    expect(isVersionNotSupported(fixture('http-error-version-not-supported.json'))).toBe(true);
    expect(isVersionNotSupported({ error: { code: -32001, message: 'Task not found' } })).toBe(false);
  });
});
