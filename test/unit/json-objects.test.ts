/** The count behind `[qos] max_answer_objects` (security/json-depth.ts): objects and arrays outside strings only. */
import { describe, expect, it } from 'vitest';
import { countJsonObjects, holdsMoreObjectsThan, isTooDeep, MAX_JSON_DEPTH } from '../../electron/core/security/json-depth.js';

describe('countJsonObjects', () => {
  it('counts every object and array, and no bracket inside a string', () => {
    expect(countJsonObjects('{"task":{"artifacts":[{"parts":[{"text":"x"}]}]}}')).toBe(6);
    expect(countJsonObjects('{"text":"[{[{ \\" {[ still a string"}')).toBe(1);
    expect(countJsonObjects('"just a string"')).toBe(0);
    expect(countJsonObjects('[[],[],{}]')).toBe(4);
  });

  it('stops once past the limit, whatever the text holds after', () => {
    expect(countJsonObjects('['.repeat(1_000) + ']'.repeat(1_000), 10)).toBe(11);
  });
});

describe('the bounds a text is checked against before it is parsed', () => {
  it('tells more objects than the bound from as many or fewer, brackets inside strings not counted', () => {
    expect(holdsMoreObjectsThan('[[],[],{}]', 4)).toBe(false);
    expect(holdsMoreObjectsThan('[[],[],{}]', 3)).toBe(true);
    // A thousand brackets in a string and one object: more openings than the bound, so the text is scanned, and passes.
    const quoted = JSON.stringify({ text: '{['.repeat(500) });
    expect(holdsMoreObjectsThan(quoted, 10)).toBe(false);
    expect(holdsMoreObjectsThan(`[${quoted},${quoted}]`, 2)).toBe(true);
  });

  it('refuses nesting one level past the bound, and only that', () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    expect(isTooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(isTooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    // Many objects side by side, none deep; and brackets in strings past the bound, none nesting.
    expect(isTooDeep(`[${'{},'.repeat(1_000)}{}]`)).toBe(false);
    expect(isTooDeep(JSON.stringify({ text: '['.repeat(1_000) }))).toBe(false);
  });
});
