/** The decoder of stored columns (store/stored-json.ts): what a row changed outside missive becomes. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isMissiveError } from '../../shared/errors.js';
import { checkedJsonText, corruptRow, storedEnum, storedJson, storedJsonAs, storedRow } from '../../electron/core/store/stored-json.js';

const task = storedRow('tasks', { task_id: "it's" });
const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

/** The MissiveError `fn` throws. */
function thrown(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    if (isMissiveError(error)) return error;
    throw error;
  }
  throw new Error('nothing was thrown');
}

describe('stored JSON', () => {
  it('decodes text and values the driver parsed, of the shape asked', () => {
    expect(storedJson('{"a":[1]}', task, 'metadata_json', 'object')).toEqual({ a: [1] });
    expect(storedJson({ a: 1 }, task, 'metadata_json', 'object')).toEqual({ a: 1 });
    expect(storedJson('["x","y"]', task, 'tags_json', 'strings')).toEqual(['x', 'y']);
    expect(storedJson(deep(128), task, 'remote_task_json')).toHaveLength(1);
    // A __proto__ key stays data: nothing reaches Object.prototype.
    const value = storedJson('{"__proto__":{"polluted":1}}', task, 'metadata_json', 'object');
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses JSON deeper than 128 levels, text that is not JSON and the wrong shape as storage::corrupt_row naming the row', () => {
    const tooDeep = thrown(() => storedJson(deep(5000), task, 'remote_task_json'));
    expect(tooDeep).toMatchObject({
      code: 'missive::storage::corrupt_row',
      exitCode: 75,
      message: `the tasks row with task_id "it's" cannot be read: its remote_task_json nests JSON deeper than 128 levels`,
    });
    expect(tooDeep.help).toContain(`DELETE FROM tasks WHERE task_id = 'it''s';`);
    let nested: unknown = 1;
    for (let i = 0; i < 5000; i++) nested = [nested];
    expect(thrown(() => storedJson(nested, task, 'remote_task_json')).message).toContain('nests JSON deeper than 128 levels');
    expect(thrown(() => storedJson('{not json', task, 'remote_task_json')).message).toMatch(/its remote_task_json is not valid JSON \(/);
    expect(thrown(() => storedJson('null', task, 'metadata_json', 'object')).message).toContain('its metadata_json is not a JSON object');
    expect(thrown(() => storedJson('[1]', task, 'tags_json', 'strings')).message).toContain('is not a JSON array of strings');
    expect(thrown(() => checkedJsonText(5, task, 'result_json')).message).toContain('is not JSON text');
    expect(checkedJsonText(null, task, 'result_json', 'any', true)).toBeNull();
  });

  it('checks a schema a caller brings, and the values of a state column', () => {
    const schema = z.object({ type: z.literal('header') });
    expect(storedJsonAs('{"type":"header"}', task, 'flow_json', schema)).toEqual({ type: 'header' });
    expect(thrown(() => storedJsonAs('{"type":"basic"}', task, 'flow_json', schema)).message).toMatch(
      /flow_json does not hold what missive stores there \(type: /,
    );
    expect(storedEnum('working', ['working', 'completed'], task, 'state')).toBe('working');
    expect(thrown(() => storedEnum('nonsense', ['working', 'completed'], task, 'state')).message).toContain(
      'its state is "nonsense", not one of working, completed',
    );
    expect(thrown(() => storedEnum(null, ['working'], task, 'state')).message).toContain('its state is null');
  });

  it('names a key that is long or holds control characters without a DELETE to copy, and says the journal is append-only', () => {
    const odd = corruptRow(storedRow('messages', { message_id: 'a\nb' }), 'content_json', 'is not valid JSON');
    expect(odd.message).toContain('message_id "a\\nb"');
    expect(odd.help).not.toContain('DELETE');
    const event = corruptRow(storedRow('events', { sequence: 7, event_id: 'e' }), 'payload_json', 'is not valid JSON');
    expect(event.message).toContain('the events row with sequence 7, event_id "e" cannot be read');
    expect(event.help).toContain('append-only');
    expect(event.help).toContain("DELETE FROM events WHERE sequence = 7 AND event_id = 'e';");
  });
});
