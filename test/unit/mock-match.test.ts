/** How `missive mock serve` finds each request's recorded exchange (electron/core/mock/match.ts), on a hand-built recording. */
import { describe, expect, it } from 'vitest';
import { createMatcher, editDistance, normalise, DISTANCE_CHARS, MAX_MISSES_KEPT } from '../../electron/core/mock/match.js';
import type { RecordedExchange, Recording } from '../../electron/core/mock/recording.js';

const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';
const OTHER_ID = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const TASK = 'task-recorded-1';

const message = (text: string, extra: Record<string, unknown> = {}) => ({ messageId: `m-${text.length}`, role: 'ROLE_USER', parts: [{ text }], ...extra });

function exchange(index: number, operation: 'send' | 'stream', text: string, extra: Record<string, unknown> = {}): RecordedExchange {
  return {
    index,
    operation,
    request: message(text, extra),
    text,
    events: [{ offset_ms: 5, kind: 'message', body: { messageId: `a-${index}`, role: 'ROLE_AGENT', parts: [{ text: `answer ${index}` }] } }],
  };
}

const recording: Recording = {
  source: 'test',
  agent: 'agent',
  card: null,
  exchanges: [
    exchange(0, 'send', `Look up order ${ID} at 2026-03-01T10:15:00Z`),
    exchange(1, 'send', 'hello'),
    exchange(2, 'send', 'hello'),
    exchange(3, 'stream', 'tell me a story'),
    exchange(4, 'send', 'ask for a name'),
    exchange(5, 'send', 'Ada', { taskId: TASK }),
  ],
};

const served = (result: ReturnType<ReturnType<typeof createMatcher>['match']>) => result.exchange?.index ?? null;

describe('normalise', () => {
  it('lowers case and folds whitespace, UUIDs, ISO times and long digit runs (ids and times)', () => {
    expect(normalise(`  Order ${ID.toUpperCase()}\n at 2026-03-01T10:15:00.123+02:00, ref 12345678  `)).toBe('order <uuid> at <time>, ref <n>');
    expect(normalise('room 42 on 2026-03-01')).toBe('room 42 on <time>');
  });

  it('measures edit distance on the first characters only', () => {
    expect(editDistance('hello', 'hallo')).toBe(2);
    expect(editDistance('a'.repeat(DISTANCE_CHARS) + 'x'.repeat(50), 'a'.repeat(DISTANCE_CHARS))).toBe(0);
  });
});

describe('createMatcher', () => {
  it('exact: only the same text parts match; a different UUID, time or case does not', () => {
    const matcher = createMatcher(recording, 'exact');
    expect(served(matcher.match(message(`Look up order ${ID} at 2026-03-01T10:15:00Z`), 'send'))).toBe(0);
    const miss = matcher.match(message(`look up order ${OTHER_ID} at 2026-04-02T08:00:00Z`), 'send');
    expect(miss.exchange).toBeNull();
    expect(miss.exchange === null && miss.closest?.index).toBe(0);
    expect(miss.reason).toContain('only case, spacing, ids or times differ: --match normalised would match');
  });

  it('normalised (the default): a different UUID, timestamp, case and spacing still match', () => {
    const matcher = createMatcher(recording);
    const result = matcher.match(message(`LOOK UP  order ${OTHER_ID}\nat 2026-04-02T08:00:00Z`), 'send');
    expect(served(result)).toBe(0);
    expect(result.reason).toBe(`recorded request #0 "Look up order ${ID} at 2026-03-01T10:15:00Z" has the same normalised text`);
  });

  it('prefers the first exchange not yet served, then serves the last served match again', () => {
    const matcher = createMatcher(recording);
    expect([1, 2, 3].map(() => served(matcher.match(message('Hello'), 'send')))).toEqual([1, 2, 2]);
    expect(matcher.match(message('hello'), 'send').reason).toContain('(served again: every match was served)');
    expect(matcher.misses()).toEqual([]);
    expect(matcher.diff()).toBe('');
  });

  it('requires the same operation, and a follow-up matches only the recorded follow-up of its task', () => {
    const matcher = createMatcher(recording);
    const asSend = matcher.match(message('tell me a story'), 'send');
    expect(asSend.exchange).toBeNull();
    expect(asSend.reason).toBe(
      'no recorded send request matches "tell me a story"; the closest is #3 "tell me a story" (recorded as a stream, asked as a send)',
    );
    expect(served(matcher.match(message('tell me a story'), 'stream'))).toBe(3);
    // "Ada" in the recorded task (the server mapped the live task id to the recorded one) matches; "Ada" alone does not.
    expect(served(matcher.match(message('ada', { taskId: TASK }), 'send'))).toBe(5);
    const alone = matcher.match(message('Ada'), 'send');
    expect(alone.exchange).toBeNull();
    expect(alone.reason).toContain(`the closest is #5 "Ada" (it continues task ${TASK})`);
  });

  it('sequence: the i-th request gets the i-th exchange whatever its text, if the operation agrees', () => {
    const matcher = createMatcher(recording, 'sequence');
    expect(served(matcher.match(message('anything'), 'send'))).toBe(0);
    expect(matcher.match(message('at all'), 'send').reason).toBe('request #1 in sequence');
    expect(served(matcher.match(message('x'), 'send'))).toBe(2);
    const wrongOp = matcher.match(message('tell me a story'), 'send');
    expect(wrongOp.exchange).toBeNull();
    expect(wrongOp.reason).toMatch(/^request #3 is a send, but recorded request #3 was a stream; the closest is #3/);
    expect(served(matcher.match(message('y'), 'send'))).toBe(4);
    expect(served(matcher.match(message('z'), 'send'))).toBe(5);
    expect(matcher.match(message('one more'), 'send').reason).toMatch(/^request #6 is past the end of the recording \(6 requests\); the closest is/);
  });

  it('gives an unmatched request the closest recorded request (smallest edit distance) and a reason naming it', () => {
    const matcher = createMatcher(recording);
    const result = matcher.match(message('hi there'), 'send');
    expect(result.exchange).toBeNull();
    expect(result.exchange === null && result.closest?.index).toBe(1);
    expect(result.reason).toBe('no recorded send request matches "hi there"; the closest is #1 "hello" (normalised text differs)');
    expect(matcher.misses()).toEqual([{ request: message('hi there'), closest: recording.exchanges[1], reason: result.reason }]);
    expect(createMatcher({ ...recording, exchanges: [] }).match(message('hi'), 'send')).toEqual({
      exchange: null,
      closest: null,
      reason: 'no recorded send request matches "hi"; the recording holds no request',
    });
  });

  it('diff(): a unified diff from the closest recorded text to each unmatched request, and the exchanges never served', () => {
    const matcher = createMatcher(recording);
    matcher.match(message('hello'), 'send');
    matcher.match(message('tell me a story'), 'stream');
    matcher.match(message('hi there'), 'send');
    const diff = matcher.diff();
    expect(diff).toContain('unmatched request 1 of 1: no recorded send request matches "hi there"; the closest is #1 "hello"');
    expect(diff).toContain(['--- recorded #1', '+++ request', '@@ -1,1 +1,1 @@', '-hello', '+hi there'].join('\n'));
    expect(diff).toContain(
      [
        'never served (4 of 6):',
        `  #0 send "Look up order ${ID} at 2026-03-01T10:15:00Z"`,
        '  #2 send "hello"',
        '  #4 send "ask for a name"',
        '  #5 send "Ada"',
      ].join('\n'),
    );
  });
  it('keeps a bounded number of unmatched requests: a client sending junk in a loop cannot grow the mock without end', () => {
    const matcher = createMatcher(recording);
    const junk = MAX_MISSES_KEPT + 50;
    for (let i = 0; i < junk; i++) expect(matcher.match(message(`junk ${i} ${'x'.repeat(100)}`), 'send').exchange).toBeNull();
    expect(matcher.misses()).toHaveLength(MAX_MISSES_KEPT);
    expect(matcher.diff()).toContain('… and 50 more unmatched request(s), not kept');
  });
});
