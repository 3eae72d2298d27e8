import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isSecretKey, redactLogLine, redactShared, redactText, redactUrl, redactValue } from '../../electron/core/security/redact.js';

describe('redaction', () => {
  it('replaces values of secret-like keys after normalising the key', () => {
    const out = redactValue({ api_key: 'k1', 'X-Api-Key': 'k2', refresh_token: 'k3', nested: [{ Password: 'p' }], name: 'ok' });
    expect(out).toEqual({ api_key: '[REDACTED]', 'X-Api-Key': '[REDACTED]', refresh_token: '[REDACTED]', nested: [{ Password: '[REDACTED]' }], name: 'ok' });
  });

  it('keeps the auth scheme but drops the credential', () => {
    expect(redactValue({ headers: { Authorization: 'Bearer abc.def', Accept: 'json' } })).toEqual({
      headers: { Authorization: 'Bearer [REDACTED]', Accept: 'json' },
    });
    expect(redactValue({ authorization: 'Basic dXNlcjpwYXNz' })).toEqual({ authorization: 'Basic [REDACTED]' });
  });

  it('scrubs credentials from free text and known literal secrets anywhere', () => {
    expect(redactText('failed with Bearer sk-123, retry')).toBe('failed with Bearer [REDACTED], retry');
    expect(redactValue({ message: 'token is hunter22 ok' }, ['hunter22'])).toEqual({ message: 'token is [REDACTED] ok' });
  });

  it('keeps the ordinary word after "Bearer" in prose, and still scrubs what looks like a credential', () => {
    // Plain words (letters only, shorter than 16, no inner case change) are prose, not credentials.
    expect(redactText('missive sends Bearer tokens only')).toBe('missive sends Bearer tokens only');
    expect(redactText('HTTP Basic authentication, or Token auth. Use Bearer Tokens.')).toBe('HTTP Basic authentication, or Token auth. Use Bearer Tokens.');
    expect(redactText('a bearer token; basic auth')).toBe('a bearer token; basic auth');
    // Credentials: a digit or a symbol inside, a lower-to-upper case change (base64), or 16+ characters.
    for (const [text, want] of [
      ['Bearer sk-123 sent', 'Bearer [REDACTED] sent'],
      ['Bearer abc.def', 'Bearer [REDACTED]'],
      ['Basic dXNlcjpwYXNz.', 'Basic [REDACTED].'],
      ['bearer qwertyuiopasdfghjkl', 'bearer [REDACTED]'],
      ['Token s3cret, then', 'Token [REDACTED], then'],
      ['Basic realm=files', 'Basic [REDACTED]'],
      ['Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig', 'Authorization: Bearer [REDACTED]'],
    ] as const) {
      expect(redactText(text)).toBe(want);
      // Scrubbing what was scrubbed changes nothing (an error redacted once, then again on output).
      expect(redactText(redactText(text))).toBe(want);
    }
    expect(redactText('Bearer [REDACTED]')).toBe('Bearer [REDACTED]');
  });

  it('scrubs key=value and JSON fragments in log lines', () => {
    expect(redactLogLine('user=bob password=hunter2 "api_key":"zzz"')).toBe('user=bob password=[REDACTED] "api_key":"[REDACTED]"');
  });

  it('does not mutate its input and treats ordinary keys as data', () => {
    const input = { token: 'x', tokens_used: 3 };
    redactValue(input);
    expect(input.token).toBe('x');
    expect(isSecretKey('tokens_used')).toBe(false);
    expect(isSecretKey('sessionToken')).toBe(true);
    expect(isSecretKey('next_page_token')).toBe(false);
    expect(isSecretKey('pageToken')).toBe(false);
  });

  it("keeps a __proto__ key from outside JSON as data, never as the copy's prototype", () => {
    const copy = redactValue(JSON.parse('{"__proto__":{"isAdmin":true,"token":"t0ps3cret"},"text":"hi"}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { isAdmin?: unknown }).isAdmin).toBeUndefined();
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"isAdmin":true,"token":"[REDACTED]"},"text":"hi"}');
  });

  it('removes userinfo, query and fragment from URLs', () => {
    expect(redactUrl('https://u:p@host/a?token=1#x')).toBe('https://host/a');
  });

  it('redactShared redacts exactly as redactValue does, never mutates, and returns what holds no secret as it is', () => {
    const secret = 'sk-live-42424242';
    const keys = fc.constantFrom('text', 'token', 'apiKey', 'headers', 'Authorization', 'parts', '__proto__', 'note', 'password', 'maxTokens');
    const leaf = fc.oneof(
      fc.string(),
      fc.constantFrom(`Bearer ${secret}`, `see ${secret}`, 'Basic dXNlcjpwYXNz', 'plain'),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
    );
    const value = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(keys, tie('node'), { maxKeys: 4 })),
    })).node;
    fc.assert(
      fc.property(value, fc.boolean(), (v, known) => {
        const input = JSON.parse(JSON.stringify(v ?? null)) as unknown;
        const before = JSON.stringify(input);
        const secrets = known ? [secret] : [];
        const shared = redactShared(input, secrets);
        expect(JSON.stringify(shared)).toBe(JSON.stringify(redactValue(input, secrets)));
        expect(JSON.stringify(input)).toBe(before);
        if (JSON.stringify(redactValue(input, secrets)) === before) expect(shared).toBe(input);
      }),
      { numRuns: 300 },
    );
    const clean = { statusUpdate: { taskId: 't', status: { message: { parts: [{ text: 'token 1 ' }] } } } };
    expect(redactShared(clean)).toBe(clean);
    const dirty = { a: clean, b: { password: 'x' } };
    const out = redactShared(dirty);
    expect(out).not.toBe(dirty);
    expect(out.a).toBe(clean);
    expect(dirty.b.password).toBe('x');
  });
});
