/** The count behind `[qos] max_answer_objects` (security/json-depth.ts): objects and arrays outside strings only. */
import { describe, expect, it } from 'vitest';
import { countJsonObjects } from '../../electron/core/security/json-depth.js';

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
