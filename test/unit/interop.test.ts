/** Units of the interop layer: card generations, dialect negotiation, origin pinning, one-line remote text, v0.3 callbacks. */
import { describe, expect, it } from 'vitest';
import { parseCard } from '../../electron/core/a2a/card.js';
import { dialectFor, isLegacyVersion } from '../../electron/core/a2a/dialect.js';
import { bindingOrder, negotiateInterface } from '../../electron/core/a2a/interfaces.js';
import { oneLine } from '../../electron/core/a2a/remote-text.js';
import { decidePin, plaintextWarning } from '../../electron/core/auth/origin-pin.js';
import { originKey } from '../../shared/origins.js';
import { grpcTarget } from '../../electron/core/a2a/grpc-transport.js';
import { readCallback } from '../../electron/core/webhook/callback-body.js';

const v03Card = {
  name: 'legacy',
  description: 'd',
  url: 'https://a.example/rpc',
  preferredTransport: 'JSONRPC',
  additionalInterfaces: [
    { url: 'https://a.example/rpc', transport: 'JSONRPC' },
    { url: 'https://a.example/rest', transport: 'HTTP+JSON' },
    { url: 'a.example:443', transport: 'GRPC' },
  ],
  protocolVersion: '0.3.0',
  version: '1',
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 's', name: 's', description: 's', tags: ['x'] }],
};

const negotiate = (raw: unknown, extra: Partial<Parameters<typeof negotiateInterface>[0]> = {}) =>
  negotiateInterface({ card: parseCard(raw), baseUrl: 'https://a.example', interfaceUrls: {}, preference: ['http+json', 'json-rpc'], ...extra });

describe('card generations', () => {
  it('reads a v0.3 card through the SDK translator: one interface per binding, stamped with the declared version', () => {
    const card = parseCard(v03Card);
    expect(card).toMatchObject({ format: '0.3', declaredVersion: '0.3.0', interfacesMissing: false });
    expect(card.wire.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.protocolVersion])).toEqual([
      ['JSONRPC', 'https://a.example/rpc', '0.3.0'],
      ['HTTP+JSON', 'https://a.example/rest', '0.3.0'],
      ['GRPC', 'a.example:443', '0.3.0'],
    ]);
  });

  it('reads a v0.2 card (url only, snake_case, no skills tags or modes) without rejecting it', () => {
    const card = parseCard({
      name: 'old',
      url: 'http://127.0.0.1:1/',
      capabilities: {},
      skills: [{ id: 'a', name: 'a', description: 'a' }],
      default_input_modes: ['text'],
    });
    expect(card.format).toBe('0.2');
    expect(card.declaredVersion).toBeNull();
    expect(card.wire.supportedInterfaces).toEqual([{ url: 'http://127.0.0.1:1/', protocolBinding: 'JSONRPC', protocolVersion: '0.2' }]);
    expect(card.wire.defaultInputModes).toEqual(['text']);
  });

  it('names the generation when a legacy card cannot be read', () => {
    expect(() => parseCard({ name: 'x', url: 'http://h/', preferredTransport: 'JSONRPC', capabilities: 'nope' })).not.toThrow();
    expect(() => parseCard({ url: 42, preferredTransport: 'JSONRPC' })).toThrow(/v0\.3 Agent Card|does not match A2A v0\.3/);
  });

  it('keeps v1.0 cards as they are', () => {
    const card = parseCard({ name: 'n', supportedInterfaces: [{ url: 'https://a.example/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }] });
    expect(card).toMatchObject({ format: '1.0', declaredVersion: null });
  });
});

describe('dialect negotiation', () => {
  it('maps versions to dialects', () => {
    expect(['0.3', '0.3.0', '0.2.5', 'v0.2'].map(dialectFor)).toEqual(['0.3', '0.3', '0.3', '0.3']);
    expect(['1.0', '1.1', '2.0', 'unknown', ''].map(dialectFor)).toEqual(['1.0', '1.0', '1.0', '1.0', '1.0']);
    expect(isLegacyVersion(null)).toBe(false);
  });

  it('speaks 0.3 to a v0.3 card, prefers the 1.0 interface when a card lists both, and obeys a forced version', () => {
    expect(negotiate(v03Card)).toMatchObject({ binding: 'http+json', dialect: '0.3', protocol_version: '0.3.0' });
    const dual = {
      name: 'dual',
      supportedInterfaces: [
        { url: 'https://a.example/legacy', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        { url: 'https://a.example/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
    };
    expect(negotiate(dual)).toMatchObject({ url: 'https://a.example/v1', dialect: '1.0' });
    expect(negotiate(dual, { forcedVersion: '0.3' })).toMatchObject({ url: 'https://a.example/legacy', dialect: '0.3' });
    expect(negotiate(v03Card, { forcedVersion: '1.0' })).toMatchObject({ binding: 'http+json', dialect: '1.0' });
  });

  it('tries supported bindings the preference leaves out after it, gRPC last', () => {
    expect(bindingOrder(['json-rpc'])).toEqual(['json-rpc', 'http+json', 'grpc']);
    expect(bindingOrder(['http+json', 'json-rpc'], 'grpc')).toEqual(['grpc']);
    expect(negotiate({ ...v03Card, preferredTransport: 'GRPC', url: 'a.example:443', additionalInterfaces: [] })).toMatchObject({
      binding: 'grpc',
      dialect: '0.3',
    });
  });
});

describe('origins and pinning', () => {
  it('reduces URLs and gRPC targets to origins', () => {
    expect(originKey('https://A.example/x?y')).toEqual({ secure: true, host: 'a.example', port: 443 });
    expect(originKey('http://127.0.0.1:8080/a2a')).toEqual({ secure: false, host: '127.0.0.1', port: 8080 });
    expect(originKey('127.0.0.1:50051')).toEqual({ secure: false, host: '127.0.0.1', port: 50051 });
    expect(originKey('agents.example:443')).toEqual({ secure: true, host: 'agents.example', port: 443 });
    expect(originKey('grpcs://[::1]:7000')).toEqual({ secure: true, host: '::1', port: 7000 });
    expect(originKey('ftp://x')).toBeNull();
    expect(grpcTarget('grpc://127.0.0.1:5000')).toEqual({ target: '127.0.0.1:5000', tls: false });
    expect(grpcTarget('https://agents.example')).toEqual({ target: 'agents.example:443', tls: true });
  });

  const pin = (target: string, extra: Partial<Parameters<typeof decidePin>[0]> = {}) =>
    decidePin({
      alias: 'x',
      baseUrl: 'https://a.example',
      trustedOrigins: [],
      target,
      credentialSources: ['--bearer-token-env'],
      allowCrossOrigin: false,
      ...extra,
    });

  it('sends credentials to the registered and trusted origins only', () => {
    expect(pin('https://a.example/rest').outcome).toBe('sent');
    expect(pin('https://a.example:443/rpc').outcome).toBe('sent');
    expect(() => pin('http://a.example/rest')).toThrow(/pinned to https:\/\/a\.example:443/); // a downgrade to http is another origin
    expect(() => pin('https://b.example/rest')).toThrow(expect.objectContaining({ exitCode: 77, code: 'missive::auth::cross_origin_credentials' }));
    expect(pin('https://b.example/rest', { trustedOrigins: ['https://b.example'] }).outcome).toBe('sent');
    expect(pin('https://b.example/rest', { allowCrossOrigin: true }).outcome).toBe('withheld');
    expect(pin('https://b.example/rest', { credentialSources: [] }).outcome).toBe('none');
    expect(() => pin('https://b.example/rest', { allowCrossOrigin: true, bodySecrets: ['the push token'] })).toThrow(/the push token for "x" may only go to/);
  });

  it('warns when a credential would cross the network in plain text, never for loopback or https', () => {
    expect(plaintextWarning('http://agents.example/rest', 'the token')).toMatch(/plain http/);
    expect(plaintextWarning('agents-plain.example:80', 'the token')).toBeUndefined(); // a bare non-loopback gRPC target is TLS
    expect(plaintextWarning('grpc://agents.example:5000', 'the token')).toMatch(/plain http/);
    expect(plaintextWarning('http://127.0.0.1:1/', 'the token')).toBeUndefined();
    expect(plaintextWarning('http://localhost:1/', 'the token')).toBeUndefined();
    expect(plaintextWarning('https://agents.example/', 'the token')).toBeUndefined();
  });
});

describe('remote text', () => {
  it('cuts an HTML error page to its title on one line', () => {
    const page =
      '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot POST /message:send</pre>\n</body>\n</html>\n';
    expect(oneLine(page)).toBe('Error');
    expect(oneLine('<html><body><h1>404\nNot Found</h1></body></html>')).toBe('404 Not Found');
    expect(oneLine('line one\r\nline two\u2028\u0007three')).toBe('line one line two three');
    expect(oneLine('x'.repeat(500))).toHaveLength(160);
  });
});

describe('push callbacks of both generations', () => {
  it('reads a v0.3 callback body through the SDK compat code, and says what is wrong with a broken one', () => {
    const ok = readCallback({ kind: 'status-update', taskId: 't1', contextId: 'c1', status: { state: 'completed' }, final: true });
    expect(ok).toMatchObject({
      ok: true,
      dialect: '0.3',
      record: { variant: 'statusUpdate', payload: { taskId: 't1', status: { state: 'TASK_STATE_COMPLETED' } } },
    });
    const v1 = readCallback({ statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } } });
    expect(v1).toMatchObject({ ok: true, dialect: '1.0' });
    const broken = readCallback({ kind: 'artifact-update', contextId: 'c1' });
    expect(broken).toMatchObject({ ok: false, reason: expect.stringMatching(/^not an A2A 0\.3 artifact-update event/) });
  });
});
