/**
 * Truthful negotiation. A2A asks for absolute interface URLs, but cards in the wild list `/a2a/rest`: missive resolves
 * such a URL against the URL the card was fetched from (RFC 3986), and skips an interface it cannot resolve (a path
 * where a gRPC host:port belongs) for the next one it can call. `agent inspect`, `agent show`, `route explain` and
 * `send` say which interface was chosen and why, in the same words; nothing it cannot call is called "selected".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../support/cli.js';
import { startRelativeUrlPeer, type RelativeUrlPeer } from '../support/relative-url-peer.js';

/** The warnings a `--json` command printed on stderr (one JSON line each). */
const warnings = (stderr: string): string[] =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { kind: string; data: { message: string } })
    .filter((l) => l.kind === 'warning')
    .map((l) => l.data.message);

let box: Sandbox;
let relative: RelativeUrlPeer;
let skipping: RelativeUrlPeer;

beforeAll(async () => {
  box = sandbox();
  relative = await startRelativeUrlPeer((base) => [
    { url: '/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ]);
  skipping = await startRelativeUrlPeer((base) => [
    { url: '/a2a/grpc', protocolBinding: 'GRPC', protocolVersion: '1.0' },
    { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ]);
  for (const [alias, peer] of [
    ['rel', relative],
    ['skip', skipping],
  ] as const)
    expect((await box.run(['agent', 'add', alias, peer.baseUrl])).code).toBe(0);
});
afterAll(async () => {
  await relative.close();
  await skipping.close();
  box.dispose();
});

describe('a relative HTTP+JSON interface URL', () => {
  it('is resolved against the card URL: the send succeeds on it and warns which URL and why', async () => {
    const sent = await box.run(['send', 'rel', 'hello', '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.json().data.selected_interface).toMatchObject({ binding: 'http+json', url: `${relative.baseUrl}/a2a/rest`, declared_url: '/a2a/rest' });
    expect(relative.paths).toContain('/a2a/rest/message:send');
    expect(warnings(sent.stderr)).toEqual([
      `"rel": HTTP+JSON ${relative.baseUrl}/a2a/rest chosen: the card's first interface missive can call; interface 1 (HTTP+JSON) has the relative URL "/a2a/rest": resolved against the card's URL ${relative.cardUrl} to ${relative.baseUrl}/a2a/rest`,
    ]);
    expect(sent.stderr).not.toMatch(/cannot call it|Invalid URL/);
  });

  it('agent inspect selects it with the reason, and its card warning says the same', async () => {
    const inspected = await box.run(['agent', 'inspect', 'rel', '--json']);
    const data = inspected.json().data;
    const reason = data.selected_interface.reason as string;
    expect(reason).toMatch(/^the card's first interface missive can call/);
    expect(reason).toContain(`"/a2a/rest": resolved against the card's URL ${relative.cardUrl} to ${relative.baseUrl}/a2a/rest`);
    const warning = data.card_warnings.find((w: { code: string }) => w.code === 'relative_url');
    expect(warning.message).toContain(`resolved against the card's URL ${relative.cardUrl} to ${relative.baseUrl}/a2a/rest`);
    expect(JSON.stringify(data.card_warnings)).not.toMatch(/cannot call it/);
    const human = (await box.run(['agent', 'inspect', 'rel'])).stdout;
    expect(human).toContain(`selected            HTTP+JSON ${relative.baseUrl}/a2a/rest`);
    expect(human).toContain(`why                 ${reason}`);
  });

  it('agent show and route explain say which interface and why, in the same words', async () => {
    const inspected = (await box.run(['agent', 'inspect', 'rel', '--json'])).json().data.selected_interface;
    const show = await box.run(['agent', 'show', 'rel', '--json']);
    expect(show.json().data.selected_interface).toMatchObject({ url: inspected.url, reason: inspected.reason });
    expect((await box.run(['agent', 'show', 'rel'])).stdout).toContain(`why                 ${inspected.reason}`);
    const route = await box.run(['route', 'explain', '--agents', 'rel,skip', '--json']);
    expect(route.code, route.stderr).toBe(0);
    const [rel] = route.json().data.candidates;
    expect(rel).toMatchObject({ alias: 'rel', chosen: true, interface: { binding: 'http+json', url: inspected.url, reason: inspected.reason } });
    expect((await box.run(['route', 'explain', '--agents', 'rel,skip'])).stdout).toContain(`HTTP+JSON ${inspected.url}`);
  });
});

describe('an interface missive cannot resolve', () => {
  it('is skipped for the next usable one, which the send uses, saying why', async () => {
    const sent = await box.run(['send', 'skip', 'hello', '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.json().data.selected_interface).toMatchObject({ binding: 'json-rpc', url: `${skipping.baseUrl}/a2a/jsonrpc` });
    expect(warnings(sent.stderr)).toEqual([
      `"skip": JSON-RPC ${skipping.baseUrl}/a2a/jsonrpc chosen: the card's first interface missive can call; skipped interface 1 (GRPC "/a2a/grpc"): a gRPC target is host:port or a URL, and a path cannot be resolved to one`,
    ]);
    const data = (await box.run(['agent', 'inspect', 'skip', '--json'])).json().data;
    expect(data.selected_interface.skipped).toEqual([
      { card_index: 0, protocol_binding: 'GRPC', url: '/a2a/grpc', reason: 'a gRPC target is host:port or a URL, and a path cannot be resolved to one' },
    ]);
    const warning = data.card_warnings.find((w: { code: string }) => w.code === 'relative_url');
    expect(warning.message).toMatch(/missive cannot call it: it is skipped$/);
    const route = (await box.run(['route', 'explain', '--agents', 'skip', '--json'])).json().data.candidates[0];
    expect(route.interface).toMatchObject({ binding: 'json-rpc', reason: data.selected_interface.reason });
  });
});
