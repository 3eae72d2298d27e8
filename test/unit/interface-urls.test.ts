/**
 * Interface URLs (core/a2a/interface-urls.ts) and the negotiation built on them: a relative URL resolves against the
 * card's URL as any relative reference does (RFC 3986), stays on the card's origin, and one that cannot be resolved is
 * skipped with its reason; `--binding` on a binding whose only interface cannot be called says so.
 */
import { describe, expect, it } from 'vitest';
import { interfaceUrl } from '../../electron/core/a2a/interface-urls.js';
import { negotiateInterface } from '../../electron/core/a2a/interfaces.js';
import { parseCard } from '../../electron/core/a2a/card.js';

const CARD = 'https://agent.example.com/agents/one/.well-known/agent-card.json';

describe('interfaceUrl', () => {
  it.each([
    ['https://api.example.com/a2a', 'http+json', { ok: true, url: 'https://api.example.com/a2a', resolved_from: null }],
    ['/a2a/rest', 'http+json', { ok: true, url: 'https://agent.example.com/a2a/rest', resolved_from: CARD }],
    ['a2a/rpc', 'json-rpc', { ok: true, url: 'https://agent.example.com/agents/one/.well-known/a2a/rpc', resolved_from: CARD }],
    ['../../rpc', 'json-rpc', { ok: true, url: 'https://agent.example.com/agents/rpc', resolved_from: CARD }],
    ['//other.example.net/a2a', 'http+json', { ok: true, url: 'https://other.example.net/a2a', resolved_from: CARD }],
    ['grpc.example.com:443', 'grpc', { ok: true, url: 'grpc.example.com:443', resolved_from: null }],
  ] as const)('%s on %s is called at its URL', (declared, binding, expected) => {
    expect(interfaceUrl(declared, binding, CARD)).toEqual(expected);
  });

  it('cannot resolve a relative URL of a card read from a file, a non-http URL, or a gRPC path', () => {
    expect(interfaceUrl('/a2a/rest', 'http+json', 'file:///tmp/card.json')).toEqual({
      ok: false,
      reason: 'it is relative, and the card was not fetched from an http(s) URL to resolve it against',
    });
    expect(interfaceUrl('/a2a/rest', 'http+json', null)).toMatchObject({ ok: false });
    expect(interfaceUrl('ftp://agent.example.com/a2a', 'http+json', CARD)).toEqual({ ok: false, reason: 'it is not an http(s) URL' });
    expect(interfaceUrl('/a2a/grpc', 'grpc', CARD)).toMatchObject({ ok: false, reason: expect.stringContaining('gRPC target') });
  });
});

describe('negotiation over interfaces missive cannot call', () => {
  const card = parseCard({
    name: 'n',
    supportedInterfaces: [
      { url: '/a2a/grpc', protocolBinding: 'GRPC', protocolVersion: '1.0' },
      { url: '/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    skills: [],
  });
  const input = { card, baseUrl: 'https://agent.example.com', interfaceUrls: {}, preference: [] };

  it('skips the gRPC path and resolves the relative HTTP+JSON URL, saying both', () => {
    const chosen = negotiateInterface({ ...input, cardUrl: 'https://agent.example.com/.well-known/agent-card.json' });
    expect(chosen).toMatchObject({ binding: 'http+json', url: 'https://agent.example.com/a2a/rest', declared_url: '/a2a/rest', card_index: 1 });
    expect(chosen.reason).toBe(
      'the card\'s first interface missive can call; interface 2 (HTTP+JSON) has the relative URL "/a2a/rest": resolved against the card\'s URL ' +
        'https://agent.example.com/.well-known/agent-card.json to https://agent.example.com/a2a/rest; skipped interface 1 (GRPC "/a2a/grpc"): ' +
        'a gRPC target is host:port or a URL, and a path cannot be resolved to one',
    );
  });

  it('fails, naming why, when nothing can be called (a card file) or --binding names an uncallable interface', () => {
    expect(() => negotiateInterface({ ...input, cardUrl: 'file:///tmp/card.json' })).toThrow(
      /no interface of the Agent Card can be called: .*skipped interface 2/,
    );
    expect(() => negotiateInterface({ ...input, cardUrl: null, required: 'grpc' })).toThrow(
      /the Agent Card's grpc interface cannot be called \(skipped interface 1/,
    );
  });
});
