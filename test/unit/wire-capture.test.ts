/**
 * The wire capture behind `--show-wire` and the GUI's wire view: what it keeps of an exchange, what it redacts, where it
 * cuts, and the session wire log's bounds.
 */
import { describe, expect, it } from 'vitest';
import { transportError } from '../../shared/errors.js';
import { wireExchange, type WireExchange } from '../../shared/ipc/contract.js';
import { createWireCapture, MAX_WIRE_BODY_BYTES, MAX_WIRE_FRAMES, type WirePhase } from '../../electron/core/a2a/wire.js';
import { createWireLog, recordWireCalls } from '../../electron/core/ipc/wire-log.js';

const TOKEN = 'wire-unit-token-0123456789';
const KEY = 'wire-unit-api-key-abcdef';

describe('wire capture', () => {
  it('records a unary exchange in order, credentials redacted everywhere', () => {
    const phases: WirePhase[] = [];
    const capture = createWireCapture({ onExchange: (_e, phase) => void phases.push(phase) });
    const rec = capture.begin(
      'SendMessage',
      {
        protocol: 'http',
        method: 'POST',
        url: `http://user:pw@127.0.0.1:9/a2a/rest/message:send?api_key=${KEY}&page=2`,
        headers: { Authorization: `Bearer ${TOKEN}`, 'X-API-Key': KEY, 'X-Custom': `v-${KEY}`, Cookie: 'sid=abc123456', 'A2A-Version': '1.0' },
        body: JSON.stringify({
          message: { parts: [{ text: `my token is ${TOKEN}` }] },
          configuration: { taskPushNotificationConfig: { url: 'http://127.0.0.1:9/cb', token: 'push-token-xyz-123' } },
        }),
      },
      [TOKEN, KEY],
    );
    rec.response(200, { 'content-type': 'application/json', 'set-cookie': ['a=secretcookie1', 'b=secretcookie2'] });
    rec.body(JSON.stringify({ message: { parts: [{ text: `echo: ${TOKEN}` }] } }));
    rec.end();
    rec.frame(null, 'ignored after the end');
    expect(phases).toEqual(['request', 'response', 'body', 'end']);

    const [exchange] = capture.exchanges();
    expect(wireExchange.parse(exchange)).toEqual(exchange);
    expect(exchange).toMatchObject({
      operation: 'SendMessage',
      request: { protocol: 'http', method: 'POST', url: 'http://127.0.0.1:9/a2a/rest/message:send?api_key=%5BREDACTED%5D&page=2' },
      response: { status: 200 },
      error: null,
    });
    expect(exchange!.frames).toBeUndefined();
    expect(exchange!.duration_ms).toBeGreaterThanOrEqual(0);
    expect(exchange!.request.headers).toEqual({
      Authorization: 'Bearer [REDACTED]',
      'X-API-Key': '[REDACTED]',
      'X-Custom': 'v-[REDACTED]',
      Cookie: '[REDACTED]',
      'A2A-Version': '1.0',
    });
    expect(exchange!.response!.headers['set-cookie']).toBe('[REDACTED]');
    const text = JSON.stringify(capture.exchanges());
    for (const secret of [TOKEN, KEY, 'push-token-xyz-123', 'abc123456', 'secretcookie', 'user:pw']) expect(text).not.toContain(secret);
    expect(exchange!.request.body).toContain('"token":"[REDACTED]"');
    expect(exchange!.response!.body).toBe('{"message":{"parts":[{"text":"echo: [REDACTED]"}]}}');
  });

  it('cuts bodies at 256 KiB without showing part of a secret at the cut', () => {
    const capture = createWireCapture();
    const body = `${'a'.repeat(MAX_WIRE_BODY_BYTES - 6)}${TOKEN}${'b'.repeat(1000)}`;
    const rec = capture.begin('SendMessage', { protocol: 'http', method: 'POST', url: 'http://127.0.0.1:9/', headers: {}, body }, [TOKEN]);
    rec.body(`${'é'.repeat(MAX_WIRE_BODY_BYTES)}`);
    rec.end();
    const [exchange] = capture.exchanges();
    expect(exchange!.request.truncated).toBe(true);
    expect(Buffer.byteLength(exchange!.request.body!)).toBeLessThanOrEqual(MAX_WIRE_BODY_BYTES);
    expect(exchange!.request.body).not.toContain(TOKEN.slice(0, 6));
    expect(exchange!.response!.truncated).toBe(true);
    expect(Buffer.byteLength(exchange!.response!.body!)).toBeLessThanOrEqual(MAX_WIRE_BODY_BYTES);
    expect(exchange!.response!.body!.endsWith('é')).toBe(true);
  });

  it('keeps stream frames in order with arrival times, at most 10,000, counting the rest', () => {
    const frames: string[] = [];
    const capture = createWireCapture({ onFrame: (_e, f) => void frames.push(f.data) });
    const rec = capture.begin('SendStreamingMessage', { protocol: 'http', method: 'POST', url: 'http://127.0.0.1:9/', headers: {}, body: '{}', stream: true }, [
      TOKEN,
    ]);
    expect(capture.exchanges()[0]!.frames).toEqual([]);
    rec.response(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < MAX_WIRE_FRAMES + 5; i++) rec.frame(i === 0 ? 'status' : undefined, i === 1 ? `{"t":"${TOKEN}"}` : `{"i":${i}}`);
    rec.end();
    const [exchange] = capture.exchanges();
    expect(exchange!.frames).toHaveLength(MAX_WIRE_FRAMES);
    expect(exchange!.frames_dropped).toBe(5);
    expect(frames).toHaveLength(MAX_WIRE_FRAMES);
    expect(exchange!.frames![0]).toMatchObject({ event: 'status', data: '{"i":0}' });
    expect(exchange!.frames![1]!.data).toBe('{"t":"[REDACTED]"}');
    expect(exchange!.frames!.at(-1)!.data).toBe(`{"i":${MAX_WIRE_FRAMES - 1}}`);
    const times = exchange!.frames!.map((f) => f.at_ms);
    expect(times.every((t, i) => i === 0 || t >= times[i - 1]!)).toBe(true);
  });

  it('records a failure with its code, the message scrubbed, and ends the exchange', () => {
    const capture = createWireCapture();
    const rec = capture.begin(
      'GetTask',
      { protocol: 'grpc', method: '/lf.a2a.v1.A2AService/GetTask', url: '127.0.0.1:9', headers: { authorization: `Bearer ${TOKEN}` }, body: '{"id":"t"}' },
      [TOKEN],
    );
    rec.fail(transportError('connection_refused', `127.0.0.1:9 refused ${TOKEN}`));
    rec.response(200, {});
    const [exchange] = capture.exchanges();
    expect(exchange).toMatchObject({ response: null, error: { code: 'missive::transport::connection_refused', message: '127.0.0.1:9 refused [REDACTED]' } });
    expect(exchange!.request.headers).toEqual({ authorization: 'Bearer [REDACTED]' });
    expect(exchange!.duration_ms).not.toBeNull();
  });
});

const exchangeWith = (chars: number): WireExchange => ({
  id: 'x',
  operation: 'SendMessage',
  started_at: new Date().toISOString(),
  duration_ms: 1,
  request: { protocol: 'http', method: 'POST', url: 'http://127.0.0.1:9/', headers: {}, body: 'x'.repeat(chars) },
  response: null,
  error: null,
});

describe('session wire log', () => {
  it('keeps the newest calls within its count and size bounds', () => {
    const log = createWireLog({ limit: 3, maxChars: 10_000 });
    for (const id of ['a', 'b', 'c', 'd']) log.record(id, [exchangeWith(10)]);
    expect(['a', 'b', 'c', 'd'].map((id) => log.get(id) !== null)).toEqual([false, true, true, true]);
    log.record('big', [exchangeWith(9_000)]);
    expect(log.get('big')).not.toBeNull();
    expect(log.get('b')).toBeNull();
    log.record('huge', [exchangeWith(50_000)]);
    expect(log.get('huge')).not.toBeNull();
    expect(log.get('big')).toBeNull();
    expect(log.get('unknown')).toBeNull();
  });

  it('logs the wire of a failed call under its message id and hands it to the error report', async () => {
    const log = createWireLog();
    const calls = recordWireCalls(log);
    let id = '';
    const failure = new Error('boom');
    await expect(
      calls.run(true, async ({ wire, messageId }) => {
        id = messageId!;
        wire!.begin('SendMessage', { protocol: 'http', method: 'POST', url: 'http://127.0.0.1:9/', headers: {}, body: '{}' }).fail(failure);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(log.get(id)).toHaveLength(1);
    expect(calls.failed(failure)).toEqual(log.get(id));
    expect(await calls.run(false, async (options) => ({ options }))).toEqual({ options: {} });
  });
});
