/**
 * "Copy as missive command" and "Copy as curl": the command lines a user pastes into a shell. Each is run through a
 * real bash with `missive` / `curl` replaced by a function that prints its arguments, so the arguments must arrive
 * exactly as intended (quotes, newlines, `$`, backticks, `!`, unicode), and no secret is ever part of the text.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { credentialVariable, curlCommand, missiveArgs, missiveCommand, shellQuote, type CopyableRequest } from '../../shared/copy-as.js';
import type { WireRequest } from '../../shared/ipc/contract.js';

/** Runs `script` in bash with `name` a function that prints each argument NUL-terminated; returns the arguments. */
function argvOf(name: string, script: string, env: Record<string, string> = {}): string[] {
  const out = execFileSync('bash', ['-c', `${name}() { printf '%s\\0' "$@"; }\n${script}`], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return out.split('\0').slice(0, -1);
}

const AWKWARD = [
  "it's",
  'two\nlines',
  '$HOME and `date` and $(id)',
  'say "hi" \\ back',
  'wow!!',
  '-starts-with-dash',
  '',
  ' spaced ',
  '日本語 ✓ émoji 🚀',
  '*',
  '~',
  'a\tb',
  '#not a comment',
];

describe('shellQuote', () => {
  it('round-trips awkward strings through bash unchanged', () => {
    expect(argvOf('show', `show ${AWKWARD.map(shellQuote).join(' ')}`)).toEqual(AWKWARD);
  });

  it('round-trips any string without NUL (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'binary' }).map((s) => s.replace(/\0/g, '')),
          { minLength: 1, maxLength: 6 },
        ),
        (words) => {
          expect(argvOf('show', `show ${words.map(shellQuote).join(' ')}`)).toEqual(words);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('leaves plain words bare', () => {
    expect(shellQuote('echo')).toBe('echo');
    expect(shellQuote('--context')).toBe('--context');
    expect(shellQuote('text=hello')).toBe('text=hello');
    expect(shellQuote('a b')).toBe("'a b'");
  });
});

describe('missiveCommand', () => {
  it('spells send with every message input flag, the message last', () => {
    const request: CopyableRequest = {
      operation: 'send',
      agent: 'echo',
      inputs: {
        text: 'it\'s $5 — "quoted"\nsecond line',
        parts: ['text=more'],
        files: ['notes.md'],
        fileUrls: ['big file.pdf'],
        fileBytes: ['img.png'],
        jsonParts: ['{"a": [1, 2]}'],
        metadata: ['k=v', 'team=ops'],
        contextId: 'ctx-1',
        acceptedOutputModes: ['text/plain'],
        returnImmediately: true,
        binding: 'json-rpc',
      },
    };
    const line = missiveCommand(request);
    expect(line.startsWith('missive send echo ')).toBe(true);
    expect(argvOf('missive', line)).toEqual([
      'send',
      'echo',
      '--part',
      'text=more',
      '--file',
      'notes.md',
      '--file-url',
      'big file.pdf',
      '--file-bytes',
      'img.png',
      '--json-part',
      '{"a": [1, 2]}',
      '--metadata',
      'k=v',
      '--metadata',
      'team=ops',
      '--context',
      'ctx-1',
      '--accepted-output-mode',
      'text/plain',
      '--return-immediately',
      '--binding',
      'json-rpc',
      'it\'s $5 — "quoted"\nsecond line',
    ]);
  });

  it('puts a message that looks like a flag after --, and adds --force and --profile', () => {
    const line = missiveCommand({ operation: 'stream', agent: 'chunks', inputs: { text: '--help me' }, force: true, profile: 'staging' });
    expect(argvOf('missive', line)).toEqual(['--profile', 'staging', 'stream', 'chunks', '--force', '--', '--help me']);
  });

  it('spells bcast and round with execution, concurrency, failure policy and reduce flags', () => {
    const bcast = missiveCommand({
      operation: 'bcast',
      group: 'fleet',
      inputs: { text: 'go' },
      execution: 'sequential',
      maxConcurrency: 4,
      failurePolicy: 'continue',
    });
    expect(argvOf('missive', bcast)).toEqual(['bcast', 'fleet', '--execution', 'sequential', '--max-concurrency', '4', '--failure-policy', 'continue', 'go']);
    const round = missiveCommand({
      operation: 'round',
      group: 'fleet',
      inputs: { text: 'vote', contextId: 'c' },
      reduce: { strategy: 'vote', template: 'Votes:\n{{inputs}}', reducerAgent: 'judge' },
    });
    expect(argvOf('missive', round)).toEqual([
      'round',
      'fleet',
      '--context',
      'c',
      '--strategy',
      'vote',
      '--template',
      'Votes:\n{{inputs}}',
      '--reducer-agent',
      'judge',
      'vote',
    ]);
  });

  it('round-trips any message text and metadata (property)', () => {
    fc.assert(
      fc.property(
        fc.string().map((s) => s.replace(/\0/g, '')),
        fc.array(
          fc.string().map((s) => `k=${s.replace(/\0/g, '')}`),
          { maxLength: 3 },
        ),
        (text, metadata) => {
          const request: CopyableRequest = { operation: 'send', agent: 'a', inputs: { text, metadata } };
          expect(argvOf('missive', missiveCommand(request))).toEqual(missiveArgs(request));
        },
      ),
      { numRuns: 150 },
    );
  });
});

const SSE_REQUEST: WireRequest = {
  protocol: 'http',
  method: 'POST',
  url: 'http://127.0.0.1:9/a2a/rest/message:stream',
  headers: {
    'A2A-Version': '1.0',
    Authorization: 'Bearer [REDACTED]',
    'X-API-Key': '[REDACTED]',
    'Content-Type': 'application/a2a+json',
    Accept: 'text/event-stream',
    'Content-Length': '42',
  },
  body: `{"message":{"parts":[{"text":"it's $HOME \\"q\\" !"}]}}`,
};

describe('curlCommand', () => {
  it('reads each redacted credential from a variable named in a leading comment, never the secret', () => {
    const text = curlCommand(SSE_REQUEST);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^# Set MISSIVE_AUTHORIZATION, MISSIVE_X_API_KEY first/);
    expect(text).toContain('-H "Authorization: Bearer $MISSIVE_AUTHORIZATION"');
    expect(text).toContain('-H "X-API-Key: $MISSIVE_X_API_KEY"');
    expect(text).not.toContain('[REDACTED]"');
    const argv = argvOf('curl', text, { MISSIVE_AUTHORIZATION: 'tok-123', MISSIVE_X_API_KEY: 'key-456' });
    expect(argv).toEqual([
      '-sS',
      '-N',
      '-X',
      'POST',
      'http://127.0.0.1:9/a2a/rest/message:stream',
      '-H',
      'A2A-Version: 1.0',
      '-H',
      'Authorization: Bearer tok-123',
      '-H',
      'X-API-Key: key-456',
      '-H',
      'Content-Type: application/a2a+json',
      '-H',
      'Accept: text/event-stream',
      '--data-raw',
      SSE_REQUEST.body,
    ]);
  });

  it('keeps literal text around a variable exact, `!` and `$` included', () => {
    const request: WireRequest = {
      protocol: 'http',
      method: 'GET',
      url: 'http://127.0.0.1:9/tasks/t1',
      headers: { Cookie: 'a=1; s=[REDACTED]; note=$x!' },
      body: null,
    };
    const text = curlCommand(request);
    expect(argvOf('curl', text, { MISSIVE_COOKIE: 'v' })).toEqual(['-sS', 'http://127.0.0.1:9/tasks/t1', '-H', 'Cookie: a=1; s=v; note=$x!']);
    const glued: WireRequest = { ...request, headers: { 'X-Token': 'pre[REDACTED]post' } };
    expect(argvOf('curl', curlCommand(glued), { MISSIVE_X_TOKEN: 'SECRET' })).toEqual(['-sS', 'http://127.0.0.1:9/tasks/t1', '-H', 'X-Token: preSECRETpost']);
  });

  it('says so instead of a command for gRPC, and warns about a cut body', () => {
    expect(curlCommand({ protocol: 'grpc', method: '/lf.a2a.v1.A2AService/SendMessage', url: '127.0.0.1:5', headers: {}, body: '{}' })).toMatch(
      /^# curl cannot send the gRPC call/,
    );
    expect(curlCommand({ ...SSE_REQUEST, headers: {}, truncated: true })).toContain('# The body was cut at 256 KiB');
  });

  it('names variables after the header', () => {
    expect(credentialVariable('Authorization')).toBe('MISSIVE_AUTHORIZATION');
    expect(credentialVariable('x-api-key')).toBe('MISSIVE_X_API_KEY');
  });
});
