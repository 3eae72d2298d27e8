/**
 * send_message's parts as A2A parts (what the agent receives), the inputs refused (local paths, file:// URLs, bytes
 * that are not base64), and the URLs an auth_required answer names.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { messageParts, partInput } from '../../electron/core/mcp/message-parts.js';
import { namedUrls } from '../../electron/core/mcp/auth-required.js';

const parts = z.array(partInput);

describe('send_message parts', () => {
  it('builds A2A 1.0 parts, the text first, and counts their bytes', () => {
    const built = messageParts(
      'hello',
      parts.parse([
        { type: 'data', data: { n: 1 } },
        { type: 'file', bytes_base64: 'aGk=', name: 'hi.txt', media_type: 'text/plain' },
        { type: 'file_url', url: 'https://example.com/a.pdf' },
      ]),
    );
    expect(built.parts).toEqual([
      { text: 'hello' },
      { data: { n: 1 }, mediaType: 'application/json' },
      { raw: 'aGk=', filename: 'hi.txt', mediaType: 'text/plain' },
      { url: 'https://example.com/a.pdf' },
    ]);
    expect(built.bytes).toBe(5 + 7 + 4 + 25);
  });

  it('leaves out an empty text beside other parts, and refuses a message with nothing in it', () => {
    expect(messageParts('', [{ type: 'text', text: 'only' }]).parts).toEqual([{ text: 'only' }]);
    expect(() => messageParts(' ', [])).toThrow(/nothing to send/);
  });

  it('refuses local files: a path field, a file:// URL, bytes that are not base64', () => {
    expect(parts.safeParse([{ type: 'file', path: '/etc/passwd' }]).success).toBe(false);
    expect(parts.safeParse([{ type: 'file_url', url: 'file:///etc/passwd' }]).success).toBe(false);
    expect(parts.safeParse([{ type: 'file_url', url: '/etc/passwd' }]).success).toBe(false);
    expect(parts.safeParse([{ type: 'file', bytes_base64: 'not base64!' }]).success).toBe(false);
  });
});

describe('auth_required', () => {
  it('quotes the http(s) URLs the agent named, each once, without trailing punctuation', () => {
    expect(namedUrls('Sign in at https://idp.example/login?x=1. Then https://idp.example/login?x=1, or (http://b.example/).')).toEqual([
      'https://idp.example/login?x=1',
      'http://b.example/',
    ]);
    expect(namedUrls(null)).toEqual([]);
  });
});
