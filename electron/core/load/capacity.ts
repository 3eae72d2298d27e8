/**
 * Trustworthy numbers: before an open-loop run, the engine refuses a target rate this process cannot keep. The ceiling
 * is calibrated once a process: the CPU a request costs here (building its body with a fresh id, encoding it, decoding
 * an answer through the SDK codec, recording its latency), timed over a few small batches after a warm-up, the fastest
 * batch kept (the least disturbed by other work on the machine), times a generous factor for the HTTP stack's own work
 * that a burst against nothing cannot see. The factor is generous on purpose: a refused rate the machine could hold
 * is worse than a saturated run, which the run itself detects (the generator's lag, report.generator).
 */
import { randomUUID } from 'node:crypto';
import { SendMessageResponse } from '@a2a-js/sdk';
import { usageError } from '../../../shared/errors.js';
import { newHistogram, recordMs } from './histograms.js';
import { requestTemplate, withMessageId } from './request.js';

/** The HTTP stack (undici, sockets, the event loop) costs this many times what the measured part does. */
const STACK_FACTOR = 10;
const BATCHES = 5;
const BATCH_SIZE = 100;

let measured: number | null = null;

function oneRequest(template: ReturnType<typeof requestTemplate>, histogram: ReturnType<typeof newHistogram>, answer: string): number {
  const started = performance.now();
  const params = withMessageId(template);
  const body = JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method: 'SendMessage', params });
  const decoded = SendMessageResponse.fromJSON(JSON.parse(answer) as object);
  recordMs(histogram, performance.now() - started);
  return body.length + (decoded.payload ? 1 : 0);
}

/** Requests a second this process can issue (calibrated once, then remembered). */
function measureCeiling(): number {
  if (measured !== null) return measured;
  const template = requestTemplate({ text: 'calibration request of missive load' }, undefined);
  const answer = JSON.stringify({
    message: { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text: 'calibration answer of missive load' }], contextId: randomUUID() },
  });
  const histogram = newHistogram();
  let sink = 0;
  for (let i = 0; i < BATCH_SIZE * 2; i++) sink += oneRequest(template, histogram, answer);
  let fastest = Infinity;
  for (let b = 0; b < BATCHES; b++) {
    const started = performance.now();
    for (let i = 0; i < BATCH_SIZE; i++) sink += oneRequest(template, histogram, answer);
    fastest = Math.min(fastest, (performance.now() - started) / BATCH_SIZE);
  }
  if (sink < 0) throw new Error('unreachable');
  const perRequestMs = Math.max(fastest, 0.001) * STACK_FACTOR;
  measured = Math.floor(1000 / perRequestMs);
  return measured;
}

/** Refuses (usage error `rate_unsustainable`, exit 64) an open-loop rate over the measured ceiling. */
export function assertSustainableRate(rate: number): void {
  if (!Number.isFinite(rate) || rate <= 0) throw usageError('invalid_rate', `the rate must be a positive number of requests a second (got ${rate})`);
  const ceiling = measureCeiling();
  if (rate > ceiling)
    throw usageError(
      'rate_unsustainable',
      `a rate of ${rate}/s is more than this process can keep: it measured a ceiling of about ${ceiling} requests a second`,
      `Use --rate ${ceiling} or less, or run several load generators (several processes or machines) and add their reports.`,
    );
}
