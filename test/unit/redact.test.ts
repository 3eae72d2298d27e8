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

describe('free-text redaction: credentials go, words stay', () => {
  it('keeps the words after "bearer" in help text and in a card\'s scheme descriptions', () => {
    for (const text of [
      'Store one with: missive auth set-secret sec-bearer (reads the secret from stdin).',
      'a bearer (JWT) issued by the identity provider',
      'Send a bearer OAuth2 access token in the Authorization header.',
      'HTTP bearer mTLS, bearer apiKey or bearer openIdConnect',
      'Bearer JWTs only; Basic auth is refused; Token-based access via Bearer [see docs]',
      'sign in with a bearer interoperability token',
    ]) {
      expect(redactText(text)).toBe(text);
    }
    // What is inside brackets after the scheme is still checked.
    expect(redactText('with Bearer (sk-123) set')).toBe('with Bearer ([REDACTED]) set');
  });

  // Security scheme names and descriptions as agent cards write them: ordinary words, camel-cased names, acronyms and
  // versioned names (OAuth2), brackets and punctuation; none of it is a credential. Names joined with "-" or "_"
  // (`sec-bearer`) are prose too, except right after a scheme word: there they are shaped like passphrase tokens
  // (`alice-token-of-the-real-one`) and are redacted on purpose.
  const ENDS_IN_SCHEME = /\b(Bearer|bearer|Basic|basic|Token)$/;
  const schemeWords = fc.constantFrom(
    ...['bearer', 'Bearer', 'basic', 'Basic', 'Token', 'token', 'tokens', 'a', 'an', 'the', 'JWT', 'JWTs', 'OAuth', 'OAuth2', 'oauth2'],
    ...['OpenID', 'openIdConnect', 'apiKey', 'api_key', 'bearerAuth', 'BearerAuth', 'sec-bearer', 'access-token', 'mTLS', 'mtls'],
    ...['HTTP', 'HTTPS', 'https', 'header', 'Authorization', 'issued', 'by', 'identity', 'provider', 'interoperability', 'authentication'],
    ...['credentials', 'client', 'reads', 'secret', 'from', 'stdin', 'scheme', 'required', 'format', 'signed', 'audience', 'scope'],
    ...['scopes', 'read', 'write', 'send', 'use', 'with', 'or', 'and', 'Keycloak', 'Okta', 'GitHub', 'AzureAD', 'iOS', 'httpAuth'],
    ...['internationalization', 'OIDC', 'SAML', 'realm', 'Entra', 'Auth0', 'v2', 'x', 'JSON', 'PKCE'],
  );
  const punctuated = fc.tuple(fc.constantFrom('', '(', '['), schemeWords, fc.constantFrom('', '.', ',', ':', ';', ')', ']', '!', '?', ').'));
  const prose = fc
    .array(punctuated, { minLength: 1, maxLength: 12 })
    .filter((words) => words.every(([, word, close], i) => !(ENDS_IN_SCHEME.test(word) && close === '' && /[-_]/.test(words[i + 1]?.[1] ?? ''))))
    .map((words) => words.map(([open, word, close]) => `${open}${word}${close}`).join(' '));

  it('property: scheme names and descriptions made of ordinary words are never redacted', () => {
    fc.assert(
      fc.property(prose, (text) => {
        expect(redactText(text)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  // Credentials as they appear on the wire: JWTs, hex and base64 secrets of 128 bits and more, prefixed API keys,
  // Basic's user:pass. (A random string of 12 letters can read like a camel-cased word: see looksLikeCredential.)
  const alnum = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'];
  const chars = (alphabet: string[], minLength: number, maxLength: number) =>
    fc.array(fc.constantFrom(...alphabet), { minLength, maxLength }).map((c) => c.join(''));
  const b64url = (minLength: number, maxLength: number) => chars([...alnum, '-', '_'], minLength, maxLength);
  const token = fc.oneof(
    fc.tuple(b64url(8, 40), b64url(8, 60), b64url(8, 43)).map(([h, p, s]) => `eyJ${h}.eyJ${p}.${s}`),
    fc.uint8Array({ minLength: 16, maxLength: 40 }).map((b) => Buffer.from(b).toString('hex')),
    fc.uint8Array({ minLength: 18, maxLength: 48 }).map((b) => Buffer.from(b).toString(b.length % 2 ? 'base64' : 'base64url')),
    fc.tuple(fc.constantFrom('sk-', 'sk-live-', 'ghp_', 'xoxb-', 'glpat-', 'AKIA'), chars(alnum, 16, 40)).map(([p, rest]) => `${p}${rest}1`),
    fc.tuple(chars(alnum, 3, 12), chars(alnum, 12, 24)).map(([u, p]) => Buffer.from(`${u}:${p}`).toString('base64')),
  );

  it('property: a credential after Bearer, Basic or Token is always redacted, wherever it stands in prose', () => {
    fc.assert(
      fc.property(
        prose,
        fc.constantFrom('Bearer', 'bearer', 'Basic', 'basic', 'Token', 'Authorization: Bearer'),
        token,
        prose,
        fc.constantFrom('', '.', ',', ')'),
        (before, scheme, secret, after, close) => {
          const out = redactText(`${before} ${scheme} ${secret}${close} ${after}`);
          expect(out).not.toContain(secret);
          expect(out).toContain(`${scheme} [REDACTED]${close}`);
          expect(redactText(out)).toBe(out);
        },
      ),
      { numRuns: 500 },
    );
  });
});
