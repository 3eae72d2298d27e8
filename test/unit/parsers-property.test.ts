/**
 * Property tests of every parser of outside data: the Agent Card parser, the unary answer parser (on its own and
 * through the A2A client on both 1.0 bindings), the SSE event parser and the push callback parser. Whatever an agent sends
 * (random JSON, random or truncated text, absurd nesting, huge strings, `__proto__` keys, wrong types in known
 * fields), each either returns a usable result or throws a MissiveError that is not `internal` (exit 70), and
 * Object.prototype stays clean. Runs and sizes are bounded so the file takes a few seconds.
 */
import { AgentCard, Task, TaskPushNotificationConfig } from '@a2a-js/sdk';
import fc from 'fast-check';
import { MockAgent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { MissiveError } from '../../shared/errors.js';
import type { BindingCall } from '../../electron/core/a2a/binding-call.js';
import { a2aClient } from '../../electron/core/a2a/client.js';
import { parseCard, parseCardText } from '../../electron/core/a2a/card.js';
import { parseJson } from '../../electron/core/a2a/json-wire.js';
import type { AnswerOf, ParamsOf, UnaryMethod } from '../../electron/core/a2a/operations.js';
import { decodeStreamData } from '../../electron/core/a2a/sse.js';
import { STREAM_VARIANTS } from '../../electron/core/a2a/stream-response.js';
import { readAnswer } from '../../electron/core/a2a/unary-answer.js';
import { readCallback } from '../../electron/core/webhook/callback-body.js';
import { MAX_JSON_DEPTH } from '../../electron/core/security/json-depth.js';
import type { SelectedInterface } from '../../electron/core/a2a/interfaces.js';

const RUNS = { numRuns: 300 };
const FEW = { numRuns: 40 };

// ---------------------------------------------------------------------------------------------------------------------
// What every parser must do.

const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();

/** Object.prototype has the same own properties as at start, and a fresh object inherits nothing odd. */
function expectNoPollution(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
  const fresh = {} as Record<string, unknown>;
  for (const key of ['polluted', 'name', 'supportedInterfaces', 'task', 'id', 'isAdmin']) expect(fresh[key]).toBeUndefined();
}

/** Runs `parse`: returns its value, or null after checking that what it threw is a MissiveError other than internal. */
function outcome<T>(parse: () => T): T | null {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof MissiveError)) throw new Error(`not a MissiveError: ${String(error)}`, { cause: error });
    expect(error.category).not.toBe('internal');
    expect(error.code).toMatch(/^missive::[a-z]+::[a-z_]+$/);
    return null;
  } finally {
    expectNoPollution();
  }
}

async function outcomeAsync<T>(parse: () => Promise<T>): Promise<T | null> {
  try {
    return await parse();
  } catch (error) {
    if (!(error instanceof MissiveError)) throw new Error(`not a MissiveError: ${String(error)}`, { cause: error });
    expect(error.category).not.toBe('internal');
    return null;
  } finally {
    expectNoPollution();
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Inputs.

/** Any JSON value, from fast-check's JSON arbitrary or from `fc.anything` forced through JSON. */
const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 5 }),
  fc.anything({ maxDepth: 4, withNullPrototype: true, withObjectString: true }).map((v) => {
    const text = JSON.stringify(v);
    return text === undefined ? null : (JSON.parse(text) as unknown);
  }),
);

/** Keys that would pollute or confuse a naive merge. */
const nastyKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__');

/** JSON text of an object whose keys include `__proto__` and friends at one or two levels (JSON.parse keeps them as own keys). */
const nastyObjectText = (inner: string): fc.Arbitrary<string> =>
  fc
    .tuple(nastyKey, nastyKey, fc.jsonValue({ maxDepth: 2 }))
    .map(
      ([a, b, v]) =>
        `{${JSON.stringify(a)}:{"polluted":true,${JSON.stringify(b)}:{"isAdmin":true}},"x":${JSON.stringify(v)}${inner === '{}' ? '}' : `,${inner.slice(1)}`}`,
    );

/** `depth` arrays or objects deep, as text: nothing builds the value, so the nesting can exceed the stack. */
const deepText = fc
  .tuple(fc.integer({ min: 100, max: 60_000 }), fc.boolean())
  .map(([depth, objects]) => (objects ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + ']'.repeat(depth)));

/** A value nested up to 300 levels deep, built with fc.letrec (beyond MAX_JSON_DEPTH, within the stack). */
const deepValue = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof({ depthSize: 'small', maxDepth: 300 }, fc.constant(1), fc.array(tie('node'), { maxLength: 1 }), fc.record({ a: tie('node') })),
})).node;

/** A value exactly `depth` arrays and objects deep, built in a loop. */
const nestedValue = fc.tuple(fc.integer({ min: 1, max: 400 }), fc.boolean()).map(([depth, objects]) => {
  let value: unknown = objects ? {} : [];
  for (let i = 1; i < depth; i++) value = objects && i % 2 ? { a: value } : [value];
  return { depth, value };
});

/** Sets `value` at `path` in a deep copy of `template`. */
function withField(template: unknown, path: readonly (string | number)[], value: unknown): unknown {
  const copy = structuredClone(template) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path[path.length - 1]!] = value;
  return copy;
}

/** A valid template with one known field replaced by a random JSON value of any type. */
const wrongTyped = (template: unknown, paths: readonly (readonly (string | number)[])[]): fc.Arbitrary<unknown> =>
  paths.length ? fc.tuple(fc.constantFrom(...paths), jsonValue).map(([path, value]) => withField(template, path, value)) : jsonValue;

/** Valid text cut anywhere. */
const truncated = (text: string): fc.Arbitrary<string> => fc.nat({ max: text.length - 1 }).map((n) => text.slice(0, n));

/** A huge string (up to 2 MB) in a known string field. */
const huge = (template: unknown, path: readonly (string | number)[]): fc.Arbitrary<string> =>
  fc
    .tuple(fc.integer({ min: 100_000, max: 2_000_000 }), fc.constantFrom('x', '"', '\\', '[', '\u2028', '😀'))
    .map(([n, c]) => JSON.stringify(withField(template, path, c.repeat(Math.ceil(n / c.length)))));

/** Everything a peer might send as text, given one valid example and its known fields. */
function bodies(template: unknown, paths: readonly (readonly (string | number)[])[]): fc.Arbitrary<string> {
  const valid = JSON.stringify(template);
  return fc.oneof(
    jsonValue.map((v) => JSON.stringify(v)),
    wrongTyped(template, paths).map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 200 }),
    fc.string({ unit: 'binary', maxLength: 200 }),
    truncated(valid),
    deepText,
    deepText.map((deep) => valid.replace(/\}$/, `,"deep":${deep}}`)),
    nastyObjectText(valid),
  );
}

// ---------------------------------------------------------------------------------------------------------------------
// Templates: one valid value of each kind.

const TASK = {
  id: 't-1',
  contextId: 'c-1',
  status: { state: 'TASK_STATE_COMPLETED', timestamp: '2025-01-01T00:00:00Z', message: { messageId: 'm-s', role: 'ROLE_AGENT', parts: [{ text: 'done' }] } },
  artifacts: [
    {
      artifactId: 'a-1',
      name: 'out',
      parts: [{ text: 'hello' }, { data: { k: [1, 2] } }, { raw: 'aGk=', mediaType: 'text/plain' }, { url: 'https://x.test/f', filename: 'f' }],
    },
  ],
  history: [{ messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] }],
  metadata: { k: 'v' },
};
const TASK_PATHS = [
  ['id'],
  ['contextId'],
  ['status'],
  ['status', 'state'],
  ['status', 'timestamp'],
  ['status', 'message'],
  ['status', 'message', 'parts'],
  ['artifacts'],
  ['artifacts', 0],
  ['artifacts', 0, 'parts'],
  ['artifacts', 0, 'parts', 0],
  ['artifacts', 0, 'parts', 1, 'data'],
  ['artifacts', 0, 'parts', 2, 'raw'],
  ['artifacts', 0, 'parts', 3, 'url'],
  ['history'],
  ['history', 0],
  ['history', 0, 'role'],
  ['metadata'],
] as const;
const MESSAGE = {
  messageId: 'm-2',
  contextId: 'c-1',
  role: 'ROLE_AGENT',
  parts: [{ text: 'hi' }, { data: [1, { a: null }] }, { raw: 'aGk=' }],
  metadata: { k: 1 },
  extensions: ['e'],
  referenceTaskIds: ['t-0'],
};
const MESSAGE_PATHS = [
  ['messageId'],
  ['role'],
  ['parts'],
  ['parts', 0],
  ['parts', 0, 'text'],
  ['parts', 1, 'data'],
  ['parts', 2, 'raw'],
  ['metadata'],
  ['extensions'],
  ['referenceTaskIds'],
] as const;

const CARD = {
  name: 'Prop Agent',
  description: 'property tests',
  version: '1.0.0',
  supportedInterfaces: [{ url: 'http://127.0.0.1:1/a2a', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['t'] }],
  securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
};
const CARD_PATHS = [
  ['name'],
  ['description'],
  ['version'],
  ['supportedInterfaces'],
  ['supportedInterfaces', 0],
  ['supportedInterfaces', 0, 'url'],
  ['supportedInterfaces', 0, 'protocolBinding'],
  ['capabilities'],
  ['capabilities', 'streaming'],
  ['defaultInputModes'],
  ['skills'],
  ['skills', 0],
  ['skills', 0, 'tags'],
  ['securitySchemes'],
  ['securitySchemes', 'bearer'],
  ['protocolVersion'],
  ['url'],
  ['preferredTransport'],
  ['additionalInterfaces'],
] as const;
/** A v0.3 card, translated by the SDK's compat code. */
const LEGACY_CARD = {
  name: 'Legacy',
  description: 'v0.3',
  version: '0.0.1',
  protocolVersion: '0.3.0',
  url: 'http://127.0.0.1:1/rpc',
  preferredTransport: 'JSONRPC',
  additionalInterfaces: [{ url: 'http://127.0.0.1:1/rest', transport: 'HTTP+JSON' }],
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 's', name: 'S', description: 'd', tags: [] }],
};
const LEGACY_CARD_PATHS = [
  ['url'],
  ['preferredTransport'],
  ['additionalInterfaces'],
  ['additionalInterfaces', 0],
  ['additionalInterfaces', 0, 'transport'],
  ['protocolVersion'],
  ['capabilities'],
  ['skills'],
  ['skills', 0],
  ['securitySchemes'],
  ['security'],
] as const;

// ---------------------------------------------------------------------------------------------------------------------
// The card parser.

const WHERE = 'http://127.0.0.1:1/.well-known/agent-card.json';

/** A parsed card missive can use: a name, a list of interfaces, an SDK value, and plain JSON throughout. */
function expectUsableCard(card: ReturnType<typeof parseCard>): void {
  expect(typeof card.wire.name).toBe('string');
  expect(card.wire.name.length).toBeGreaterThan(0);
  expect(Array.isArray(card.wire.supportedInterfaces)).toBe(true);
  for (const i of card.wire.supportedInterfaces) expect(typeof i.url).toBe('string');
  expect(() => AgentCard.toJSON(card.typed)).not.toThrow();
  expect(() => JSON.stringify(card.wire)).not.toThrow();
}

describe('card parser (parseCardText + parseCard)', () => {
  const parseText = (text: string) => outcome(() => parseCard(parseCardText(text, WHERE), WHERE));

  it('reads a valid 1.0 and v0.3 card', () => {
    expectUsableCard(parseText(JSON.stringify(CARD))!);
    expect(parseText(JSON.stringify(LEGACY_CARD))!.format).toBe('0.3');
  });

  it('returns a usable card or a protocol error for any text', () => {
    fc.assert(
      fc.property(fc.oneof(bodies(CARD, CARD_PATHS), bodies(LEGACY_CARD, LEGACY_CARD_PATHS)), (text) => {
        const card = parseText(text);
        if (card) expectUsableCard(card);
      }),
      RUNS,
    );
  });

  it('returns a usable card or a protocol error for any JSON value, deep ones included', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          jsonValue,
          wrongTyped(CARD, CARD_PATHS),
          wrongTyped(LEGACY_CARD, LEGACY_CARD_PATHS),
          deepValue,
          deepValue.map((d) => ({ ...CARD, skills: [d] })),
        ),
        (value) => {
          const card = outcome(() => parseCard(value, WHERE));
          if (card) expectUsableCard(card);
        },
      ),
      RUNS,
    );
  });

  it('keeps every extra field under its own name, `constructor` and friends included, and drops `__proto__`', () => {
    const extraKey = fc.oneof(
      nastyKey,
      fc.string({ maxLength: 12 }).map((k) => `x-${k}`),
    );
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(extraKey, fc.jsonValue({ maxDepth: 2 })), { selector: ([k]) => k, maxLength: 6 }), (extra) => {
        const text = `{${extra.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}${extra.length ? ',' : ''}${JSON.stringify(CARD).slice(1)}`;
        const card = parseText(text)!;
        expectUsableCard(card);
        expect(Object.getPrototypeOf(card.wire)).toBe(Object.prototype);
        const wire = card.wire as Record<string, unknown>;
        for (const [key, value] of extra) {
          if (key === '__proto__') expect(Object.hasOwn(wire, key)).toBe(false);
          else expect(Object.getOwnPropertyDescriptor(wire, key)?.value).toEqual(JSON.parse(JSON.stringify(value)));
        }
      }),
      RUNS,
    );
  });

  it('regression: `constructor` / `toString` keys were renamed, and a field under `__proto__` could stand in for a missing one', () => {
    const card = parseText('{"name":"n","supportedInterfaces":[],"constructor":"c","toString":"t","__proto__":{"name":"smuggled"}}')!;
    expect(Object.keys(card.wire).sort()).toEqual(['constructor', 'name', 'supportedInterfaces', 'toString']);
    expect(card.wire).toMatchObject({ name: 'n', constructor: 'c', toString: 't' });
    // A field only under `__proto__` is no field of the card.
    expect(() => parseCard(parseCardText('{"__proto__":{"name":"smuggled","supportedInterfaces":[]}}', WHERE), WHERE)).toThrow(
      expect.objectContaining({ code: 'missive::protocol::invalid_card' }),
    );
  });

  it('regression: a v0.3 card whose url is an object that cannot become text crashed the translation (exit 70)', () => {
    const legacy = { ...LEGACY_CARD, url: { toString: false } };
    expect(() => parseCard(legacy, WHERE)).toThrow(expect.objectContaining({ code: 'missive::protocol::invalid_card' }));
  });

  it('copes with huge strings in a card', () => {
    fc.assert(
      fc.property(fc.oneof(huge(CARD, ['name']), huge(CARD, ['description']), huge(LEGACY_CARD, ['url'])), (text) => {
        const card = parseText(text);
        if (card) expectUsableCard(card);
      }),
      FEW,
    );
  });

  it('refuses 50,000 levels of nesting as too_deeply_nested (regression: stack overflow, exit 70)', () => {
    const deep = '['.repeat(50_000) + ']'.repeat(50_000);
    expect(() => parseCardText(`{"name":"deep","supportedInterfaces":[],"skills":${deep}}`, WHERE)).toThrow(
      expect.objectContaining({ code: 'missive::protocol::too_deeply_nested', exitCode: 76 }),
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// The unary answer parser.

const ANSWERS: Record<UnaryMethod, { template: unknown; paths: readonly (readonly (string | number)[])[] }> = {
  SendMessage: { template: { task: TASK }, paths: [['task'], ...TASK_PATHS.map((p) => ['task', ...p])] },
  GetTask: { template: TASK, paths: TASK_PATHS },
  CancelTask: { template: TASK, paths: TASK_PATHS },
  ListTasks: {
    template: { tasks: [TASK], nextPageToken: 'n', pageSize: 1, totalSize: 2 },
    paths: [['tasks'], ['tasks', 0], ['nextPageToken'], ['pageSize'], ['totalSize'], ...TASK_PATHS.map((p) => ['tasks', 0, ...p])],
  },
  CreateTaskPushNotificationConfig: {
    template: { id: 'p', taskId: 't-1', url: 'http://127.0.0.1:1/cb', token: 'x', authentication: { scheme: 'Bearer', credentials: 'c' } },
    paths: [['id'], ['taskId'], ['url'], ['token'], ['authentication'], ['authentication', 'scheme']],
  },
  GetTaskPushNotificationConfig: { template: { id: 'p', taskId: 't-1', url: 'http://127.0.0.1:1/cb' }, paths: [['id'], ['url'], ['authentication']] },
  ListTaskPushNotificationConfigs: {
    template: { configs: [{ id: 'p', taskId: 't-1', url: 'http://127.0.0.1:1/cb' }], nextPageToken: '' },
    paths: [['configs'], ['configs', 0], ['configs', 0, 'authentication'], ['nextPageToken']],
  },
  DeleteTaskPushNotificationConfig: { template: {}, paths: [] },
  GetExtendedAgentCard: { template: CARD, paths: CARD_PATHS },
};
const METHODS = Object.keys(ANSWERS) as UnaryMethod[];
const MESSAGE_ANSWER = { message: MESSAGE };

/** The typed answer is what its readers (send.ts, tasks/, push/, agents/) use as it is: it must hold what they read. */
function expectReadable<M extends UnaryMethod>(method: M, value: AnswerOf<M> | null): void {
  const answer = value as AnswerOf<UnaryMethod> | null;
  switch (method) {
    case 'SendMessage': {
      const sent = answer as AnswerOf<'SendMessage'>;
      expect(sent.task?.id || sent.message).toBeTruthy();
      if (sent.task) expect(Task.toJSON(Task.fromJSON(sent.task))).toEqual(sent.task);
      break;
    }
    case 'GetTask':
    case 'CancelTask':
      expect((answer as AnswerOf<'GetTask'>).id).toBeTruthy();
      break;
    case 'ListTasks':
      for (const t of (answer as AnswerOf<'ListTasks'>).tasks) expect(t.id).toBeTruthy();
      break;
    case 'GetTaskPushNotificationConfig':
      TaskPushNotificationConfig.toJSON(TaskPushNotificationConfig.fromJSON(answer));
      break;
    case 'GetExtendedAgentCard':
      expectUsableCard((answer as AnswerOf<'GetExtendedAgentCard'>).card);
      break;
    default:
      break;
  }
  expect(() => JSON.stringify(answer ?? null)).not.toThrow();
}

const answerText = fc.constantFrom(...METHODS).chain((method) => {
  const { template, paths } = ANSWERS[method];
  const texts =
    method === 'SendMessage'
      ? fc.oneof(
          bodies(template, paths),
          bodies(
            MESSAGE_ANSWER,
            MESSAGE_PATHS.map((p) => ['message', ...p]),
          ),
        )
      : bodies(template, paths);
  return fc.tuple(fc.constant(method), texts);
});

describe('unary answer parser (parseJson + readAnswer)', () => {
  const read = <M extends UnaryMethod>(method: M, text: string) => outcome(() => readAnswer(method, parseJson(text, `the ${method} response`)));

  it('reads a valid answer of every operation', () => {
    for (const method of METHODS) expectReadable(method, read(method, JSON.stringify(ANSWERS[method].template)));
    expectReadable('SendMessage', read('SendMessage', JSON.stringify(MESSAGE_ANSWER)));
  });

  it('returns a readable result or a protocol error for any body', () => {
    fc.assert(
      fc.property(answerText, ([method, text]) => {
        const value = read(method, text);
        if (value !== null || method.startsWith('Delete') || method.startsWith('Create')) expectReadable(method, value);
      }),
      RUNS,
    );
  });

  it('copes with huge strings in an answer', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          huge({ task: TASK }, ['task', 'id']),
          huge({ task: TASK }, ['task', 'artifacts', 0, 'parts', 0, 'text']),
          huge({ task: TASK }, ['task', 'artifacts', 0, 'parts', 2, 'raw']),
        ),
        (text) => {
          const value = read('SendMessage', text);
          if (value !== null) expectReadable('SendMessage', value);
        },
      ),
      FEW,
    );
  });

  it('regressions: bodies that crashed the readers with a TypeError (exit 70) are protocol errors', () => {
    for (const text of [
      '',
      'null',
      '{"task":{}}',
      '{"task":"x"}',
      '{"task":{"id":"t","artifacts":[null]}}',
      '{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"raw":5}]}}',
    ]) {
      expect(() => readAnswer('SendMessage', text ? parseJson(text, 'the answer') : null), text).toThrow(
        expect.objectContaining({ code: 'missive::protocol::invalid_response', exitCode: 76 }),
      );
    }
    expect(() => readAnswer('GetTask', { id: 't', artifacts: [null] })).toThrow(expect.objectContaining({ exitCode: 76 }));
    expect(() => parseJson(`{"task":${'['.repeat(50_000)}${']'.repeat(50_000)}}`, 'the answer')).toThrow(
      expect.objectContaining({ code: 'missive::protocol::too_deeply_nested' }),
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// The whole unary path (HTTP status, JSON-RPC envelope, answer check) through the A2A client, on undici's in-memory MockAgent.

const ORIGIN = 'http://127.0.0.1:9';
const mock = new MockAgent();
mock.disableNetConnect();
let reply: { status: number; body: string } = { status: 200, body: '{}' };
mock
  .get(ORIGIN)
  .intercept({ path: () => true, method: () => true })
  .reply(() => ({ statusCode: reply.status, data: reply.body, responseOptions: { headers: { 'content-type': 'application/json' } } }))
  .persist();
afterAll(() => mock.close());

const iface = (binding: 'http+json' | 'json-rpc'): SelectedInterface => ({
  binding,
  protocol_binding: binding === 'json-rpc' ? 'JSONRPC' : 'HTTP+JSON',
  url: `${ORIGIN}/a2a`,
  tenant: null,
  protocol_version: '1.0',
  dialect: '1.0',
  source: 'agent_card',
});
const callOf = (binding: 'http+json' | 'json-rpc'): BindingCall => ({
  iface: iface(binding),
  headers: {},
  timeoutMs: 5_000,
  protocolVersion: '1.0',
  dispatcher: mock,
  alias: 'prop',
});

/** JSON-RPC envelopes around a body: a result, an error object of any shape, or no envelope at all. */
const envelope = (text: string): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constant(text),
    fc.constant(`{"jsonrpc":"2.0","id":"1","result":${text}}`),
    jsonValue.map((error) => `{"jsonrpc":"2.0","id":"1","error":${JSON.stringify(error)}}`),
    fc
      .record({ code: fc.oneof(fc.integer(), fc.constant(-32601), fc.constant(-32009), jsonValue), message: jsonValue })
      .map((error) => `{"jsonrpc":"2.0","id":"1","error":${JSON.stringify(error)}}`),
  );

describe('unary answers through the A2A client (both 1.0 bindings)', () => {
  it('returns a readable result or a non-internal MissiveError for any status and body', async () => {
    await fc.assert(
      fc.asyncProperty(
        answerText.chain(([method, text]) =>
          fc.tuple(
            fc.constant(method),
            fc.constantFrom('http+json', 'json-rpc') as fc.Arbitrary<'http+json' | 'json-rpc'>,
            envelope(text),
            fc.constantFrom(200, 200, 200, 201, 204, 400, 404, 405, 500, 503),
          ),
        ),
        async ([method, binding, body, status]) => {
          reply = { status, body: status === 204 ? '' : body };
          const params = { id: 't-1', taskId: 't-1', message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } };
          const value = await outcomeAsync(() => a2aClient(callOf(binding)).transport.unary(method, params as ParamsOf<typeof method>));
          if (value !== null || method.startsWith('Delete') || method.startsWith('Create')) expectReadable(method, value);
        },
      ),
      { numRuns: 150 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// The SSE event parser.

const STREAM_EVENTS = [
  { template: { task: TASK }, paths: [['task'], ...TASK_PATHS.map((p) => ['task', ...p])] },
  { template: { message: MESSAGE }, paths: [['message'], ...MESSAGE_PATHS.map((p) => ['message', ...p])] },
  {
    template: { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: TASK.status, metadata: {} } },
    paths: [['statusUpdate'], ['statusUpdate', 'taskId'], ['statusUpdate', 'status'], ['statusUpdate', 'status', 'state'], ['statusUpdate', 'metadata']],
  },
  {
    template: { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: TASK.artifacts[0], append: false, lastChunk: true } },
    paths: [
      ['artifactUpdate'],
      ['artifactUpdate', 'artifact'],
      ['artifactUpdate', 'artifact', 'parts'],
      ['artifactUpdate', 'artifact', 'parts', 1],
      ['artifactUpdate', 'append'],
      ['artifactUpdate', 'lastChunk'],
    ],
  },
] as const;

const eventData = fc
  .constantFrom(...STREAM_EVENTS)
  .chain(({ template, paths }) =>
    fc.oneof(
      bodies(template, paths),
      bodies({ jsonrpc: '2.0', id: '1', result: template }, [['jsonrpc'], ['result'], ...paths.map((p) => ['result', ...p])]),
      envelope(JSON.stringify(template)),
    ),
  );

function expectUsableRecord(record: ReturnType<typeof decodeStreamData>): void {
  expect(STREAM_VARIANTS).toContain(record.variant);
  expect(typeof record.payload).toBe('object');
  expect(() => JSON.stringify(record.payload)).not.toThrow();
}

describe('SSE event parser (decodeStreamData)', () => {
  it('reads valid events on both bindings', () => {
    for (const { template } of STREAM_EVENTS) {
      expectUsableRecord(decodeStreamData(JSON.stringify(template), { iface: iface('http+json'), protocolVersion: '1.0' }, 'SendStreamingMessage', 1));
      expectUsableRecord(
        decodeStreamData(
          JSON.stringify({ jsonrpc: '2.0', id: 1, result: template }),
          { iface: iface('json-rpc'), protocolVersion: '1.0' },
          'SendStreamingMessage',
          1,
        ),
      );
    }
  });

  it('returns a usable record or a protocol error for any event data', () => {
    fc.assert(
      fc.property(eventData, fc.constantFrom('http+json', 'json-rpc') as fc.Arbitrary<'http+json' | 'json-rpc'>, (data, binding) => {
        const record = outcome(() => decodeStreamData(data, { iface: iface(binding), protocolVersion: '1.0', alias: 'prop' }, 'SendStreamingMessage', 7));
        if (record) expectUsableRecord(record);
      }),
      RUNS,
    );
  });

  it("regression: a JSON-RPC error whose message or code is not of the spec's type crashed with a TypeError (exit 70)", () => {
    for (const error of ['{"code":-32603,"message":[]}', '{"code":-32009,"message":{}}', '{"code":{},"message":5}', '"text"']) {
      expect(() =>
        decodeStreamData(`{"jsonrpc":"2.0","id":1,"error":${error}}`, { iface: iface('json-rpc'), protocolVersion: '1.0' }, 'SendStreamingMessage', 2),
      ).toThrow(expect.objectContaining({ category: 'protocol' }));
    }
  });

  it('refuses 50,000 levels of nesting as too_deeply_nested (regression: stack overflow, exit 70)', () => {
    const data = `{"task":{"id":"t","metadata":{"x":${'['.repeat(50_000)}${']'.repeat(50_000)}}}}`;
    expect(() => decodeStreamData(data, { iface: iface('http+json'), protocolVersion: '1.0' }, 'SendStreamingMessage', 3)).toThrow(
      expect.objectContaining({ code: 'missive::protocol::too_deeply_nested', message: expect.stringContaining('stream event #3') }),
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// The push callback parser: it gets what the receiver's JSON.parse made of the body, and never throws.

const LEGACY_EVENTS = [
  {
    template: { kind: 'status-update', taskId: 't-1', contextId: 'c-1', status: { state: 'completed', timestamp: '2025-01-01T00:00:00Z' }, final: true },
    paths: [['status'], ['status', 'state'], ['taskId'], ['final'], ['kind']],
  },
  {
    template: {
      kind: 'artifact-update',
      taskId: 't-1',
      contextId: 'c-1',
      artifact: {
        artifactId: 'a',
        parts: [
          { kind: 'text', text: 'x' },
          { kind: 'data', data: { a: 1 } },
          { kind: 'file', file: { bytes: 'aGk=' } },
        ],
      },
    },
    paths: [
      ['artifact'],
      ['artifact', 'parts'],
      ['artifact', 'parts', 0],
      ['artifact', 'parts', 1, 'data'],
      ['artifact', 'parts', 2, 'file'],
      ['artifact', 'parts', 0, 'kind'],
    ],
  },
  {
    template: { kind: 'task', id: 't-1', contextId: 'c-1', status: { state: 'working' }, history: [], artifacts: [] },
    paths: [['id'], ['status'], ['history'], ['artifacts']],
  },
  { template: { kind: 'message', messageId: 'm', role: 'agent', parts: [{ kind: 'text', text: 'x' }] }, paths: [['role'], ['parts'], ['parts', 0]] },
] as const;

const callbackText = fc.constantFrom(...STREAM_EVENTS, ...LEGACY_EVENTS).chain(({ template, paths }) => bodies(template, paths));

describe('callback parser (readCallback)', () => {
  /** As the receiver does it: JSON.parse, then readCallback on whatever came out. */
  const readText = (text: string) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return null;
    }
    const checked = readCallback(value);
    expectNoPollution();
    return checked;
  };

  it('reads valid callbacks of both generations', () => {
    for (const { template } of STREAM_EVENTS) expect(readCallback(structuredClone(template))).toMatchObject({ ok: true, dialect: '1.0' });
    for (const { template } of LEGACY_EVENTS) expect(readCallback(structuredClone(template))).toMatchObject({ ok: true, dialect: '0.3' });
  });

  it('never throws, whatever the body, and a record it accepts is usable', () => {
    fc.assert(
      fc.property(callbackText, (text) => {
        const checked = readText(text);
        if (checked?.ok) expectUsableRecord(checked.record);
        else if (checked) expect(typeof checked.reason).toBe('string');
      }),
      RUNS,
    );
  });

  it('refuses a body nested deeper than MAX_JSON_DEPTH, and reads the same event nested within it', () => {
    fc.assert(
      fc.property(nestedValue, ({ depth, value }) => {
        // Three levels above the metadata value: the body, statusUpdate, metadata.
        const checked = readCallback({ statusUpdate: { taskId: 't', status: { state: 'TASK_STATE_WORKING' }, metadata: { d: value } } });
        if (depth + 3 > MAX_JSON_DEPTH) expect(checked).toEqual({ ok: false, reason: 'the body nests JSON deeper than 128 levels' });
        else expect(checked).toMatchObject({ ok: true, record: { variant: 'statusUpdate' } });
      }),
      RUNS,
    );
  });

  it('regression: a status update whose metadata nests 1,000 deep was accepted, and the journal could not store it', () => {
    const deep = JSON.parse(`${'['.repeat(1_000)}${']'.repeat(1_000)}`) as unknown;
    expect(readCallback({ statusUpdate: { taskId: 't', status: { state: 'TASK_STATE_WORKING' }, metadata: { d: deep } } })).toMatchObject({ ok: false });
    const deeper = JSON.parse(
      `{"kind":"status-update","taskId":"t","status":{"state":"working"},"metadata":{"d":${'['.repeat(50_000)}${']'.repeat(50_000)}}}`,
    ) as unknown;
    expect(readCallback(deeper)).toMatchObject({ ok: false, reason: expect.stringContaining('deeper than 128') });
  });

  it('never throws for any JSON value, deep ones included', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          jsonValue,
          deepValue,
          nestedValue.map(({ value }) => value),
          deepText.map((text) => JSON.parse(text) as unknown),
        ),
        (value) => {
          const checked = readCallback(value);
          expectNoPollution();
          if (checked.ok) expectUsableRecord(checked.record);
          else expect(typeof checked.reason).toBe('string');
        },
      ),
      RUNS,
    );
  });
});
