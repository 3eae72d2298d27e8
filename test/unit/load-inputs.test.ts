/** `missive load --from-file inputs.jsonl`: what a line may hold, and the usage error naming a bad line. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_LOAD_INPUTS, readLoadInputs } from '../../electron/core/load/inputs.js';
import { MissiveError } from '../../shared/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'missive-load-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return name;
};

const failure = (name: string): MissiveError => {
  try {
    readLoadInputs(name, dir);
  } catch (error) {
    return error as MissiveError;
  }
  throw new Error('expected a failure');
};

describe('readLoadInputs', () => {
  it('reads JSON strings and {text, parts} objects, skipping blank lines', () => {
    const name = file('ok.jsonl', '"first"\n\n{"text": "second"}\r\n{"parts": [{"data": {"n": 1}}]}\n   \n{"text": "both", "parts": [{"text": "more"}]}\n');
    expect(readLoadInputs(name, dir)).toEqual([
      { text: 'first' },
      { text: 'second' },
      { parts: [{ data: { n: 1 } }] },
      { text: 'both', parts: [{ text: 'more' }] },
    ]);
  });

  it.each([
    ['not JSON', '"ok"\n\n{oops\n', /line 3: not JSON/],
    ['a number', '"ok"\n42\n', /line 2: expected a JSON string or object/],
    ['an unknown field', '{"text": "a", "file": "x"}\n', /line 1: unknown field "file"/],
    ['parts that are not objects', '{"parts": ["text"]}\n', /line 1: "parts" must be an array of JSON objects/],
    ['nothing to send', '{}\n', /line 1: nothing to send/],
    ['an empty string', '""\n', /line 1: the text is empty/],
  ])('a line holding %s is a usage error naming the line', (_what, text, message) => {
    const error = failure(file('bad.jsonl', text));
    expect(error.code).toBe('missive::validation::invalid_load_input');
    expect(error.exitCode).toBe(64);
    expect(error.message).toMatch(message);
  });

  it('refuses an empty file, a missing file and more than the maximum number of lines', () => {
    expect(failure(file('empty.jsonl', '\n\n')).code).toBe('missive::validation::invalid_load_input');
    expect(failure('missing.jsonl').code).toBe('missive::validation::unreadable_load_input');
    const many = file('many.jsonl', '"x"\n'.repeat(MAX_LOAD_INPUTS + 1));
    expect(failure(many).code).toBe('missive::validation::too_many_load_inputs');
  });
});
