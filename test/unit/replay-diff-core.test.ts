/** The pure parts of `events replay` and `diff`: field comparison of summaries, JSON diff paths, text hunks. */
import { describe, expect, it } from 'vitest';
import { compareSummaries } from '../../electron/core/replay/compare.js';
import { diffJson } from '../../electron/core/diff/json-diff.js';
import { diffText } from '../../electron/core/diff/text-diff.js';

describe('compareSummaries', () => {
  it('compares the fields the stored side names, and reports a member on one side only by the array length', () => {
    const rebuilt = {
      status: 'succeeded',
      extra: 'shown only',
      members: [
        { alias: 'a', rank: 0, task_id: 't1' },
        { alias: 'b', rank: 1, task_id: null },
      ],
    };
    expect(
      compareSummaries(rebuilt, {
        status: 'succeeded',
        members: [
          { alias: 'a', task_id: 't1' },
          { alias: 'b', task_id: null },
        ],
      }),
    ).toEqual([]);
    expect(compareSummaries(rebuilt, { status: 'failed', members: [{ alias: 'a', task_id: 't2' }] })).toEqual([
      { field: 'status', rebuilt: 'succeeded', stored: 'failed' },
      { field: 'members.length', rebuilt: 2, stored: 1 },
      { field: 'members[0].task_id', rebuilt: 't1', stored: 't2' },
    ]);
    expect(compareSummaries({}, { reduced_message_id: 'm1' })).toEqual([{ field: 'reduced_message_id', rebuilt: null, stored: 'm1' }]);
  });
});

describe('diffJson', () => {
  it('names changed, added and removed paths, quoting keys that are not identifiers', () => {
    expect(diffJson({ 'a b': 1, same: [1, { x: true }], t: { n: 1 } }, { 'a b': 2, same: [1, { x: true }], t: [1], added: null })).toEqual([
      { path: '$["a b"]', kind: 'changed', a: 1, b: 2 },
      { path: '$.added', kind: 'added', b: null },
      { path: '$.t', kind: 'changed', a: { n: 1 }, b: [1] },
    ]);
    expect(diffJson([{ k: 1 }], [])).toEqual([{ path: '$[0]', kind: 'removed', a: { k: 1 } }]);
    expect(diffJson({ a: [1, 2] }, { a: [1, 2] })).toEqual([]);
  });
});

describe('diffText', () => {
  it('gives unified hunks, and no difference for a missing final newline or two empty outputs', () => {
    expect(diffText('one\ntwo\nthree', 'one\n2\nthree\n')).toEqual({
      changed: true,
      hunks: [{ old_start: 1, old_lines: 3, new_start: 1, new_lines: 3, lines: [' one', '-two', '+2', ' three'] }],
    });
    expect(diffText('same', 'same\n').changed).toBe(false);
    expect(diffText(null, '').changed).toBe(false);
    expect(diffText(null, 'new').hunks[0]!.lines).toEqual(['+new']);
  });
});
