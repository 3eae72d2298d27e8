/**
 * Card warnings (core/agents/card-warnings.ts): a flawed card that missive still reads gets one warning per problem
 * (missing fields, relative and cross-origin URLs, bindings missive cannot use, versions it does not speak, the
 * signature), a clean card gets none, and a refused card lists every issue, not one. `agent inspect` of a card file
 * shows the same warnings, in --json and in the human text.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCard } from '../../electron/core/a2a/card.js';
import { cardWarnings, refusedCardIssues } from '../../electron/core/agents/card-warnings.js';
import { sandbox, type Sandbox } from '../support/cli.js';

const ORIGIN = 'https://agent.example.com';
const CARD_URL = `${ORIGIN}/.well-known/agent-card.json`;

const clean = {
  name: 'Clean',
  description: 'does one thing well',
  version: '1.2.0',
  supportedInterfaces: [{ url: `${ORIGIN}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'one', name: 'One', description: 'the thing', tags: ['x'] }],
};

const flawed = {
  name: 'Flawed',
  protocolVersion: '0.9',
  supportedInterfaces: [
    { url: '/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    { url: 'https://elsewhere.example.net/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: `${ORIGIN}/ws`, protocolBinding: 'WEBSOCKET', protocolVersion: '1.0' },
    { url: `${ORIGIN}/a2a/v2`, protocolBinding: 'HTTP+JSON', protocolVersion: '2.1' },
  ],
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  documentationUrl: 'docs/index.html',
};

const codes = (list: Array<{ code: string; field: string | null }>) => list.map((w) => `${w.code}@${w.field}`);

describe('card warnings', () => {
  it('a clean card served from its own origin has none beyond the unsigned note', () => {
    const warnings = cardWarnings({
      card: parseCard(clean),
      cardUrl: CARD_URL,
      signature: { status: 'unsigned', kid: null, reason: null, key_source: null },
      negotiated: true,
    });
    expect(warnings).toEqual([expect.objectContaining({ code: 'unsigned', severity: 'info' })]);
  });

  it('lists every flaw of a card it still reads, each with its field', () => {
    const warnings = cardWarnings({
      card: parseCard(flawed),
      cardUrl: CARD_URL,
      signature: { status: 'invalid', kid: 'k1', reason: 'the signature does not verify', key_source: 'jku' },
      negotiated: true,
    });
    expect(codes(warnings)).toEqual([
      'missing_description@description',
      'missing_skills@skills',
      'missing_version@version',
      'relative_url@supportedInterfaces.0.url',
      'cross_origin_url@supportedInterfaces.1.url',
      'unsupported_binding@supportedInterfaces.2.protocolBinding',
      'version_mismatch@supportedInterfaces.3.protocolVersion',
      'version_mismatch@protocolVersion',
      'relative_url@documentationUrl',
      'signature_invalid@signatures',
    ]);
    expect(warnings.find((w) => w.code === 'cross_origin_url')!.message).toContain('https://elsewhere.example.net');
    expect(warnings.find((w) => w.code === 'cross_origin_url')!.message).toContain('--trust-origin');
    expect(warnings.find((w) => w.code === 'missing_version')!.severity).toBe('info');
  });

  it('names a trusted origin as such, and says when no interface is usable', () => {
    const card = parseCard({ ...clean, supportedInterfaces: [{ url: 'https://api.example.org/a2a', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }] });
    const trusted = cardWarnings({ card, cardUrl: CARD_URL, trustedOrigins: ['https://api.example.org'], negotiated: false });
    expect(trusted.find((w) => w.code === 'cross_origin_url')!.message).toContain('trusted origin');
    expect(codes(trusted)).toContain('no_usable_interface@supportedInterfaces');
  });

  it('a refused card lists every issue, not only the first', () => {
    const issues = refusedCardIssues({ name: '', supportedInterfaces: [{ url: 5, protocolBinding: 'HTTP+JSON' }], skills: 'many' });
    expect(issues.length).toBeGreaterThanOrEqual(3);
    expect(issues.some((i) => i.startsWith('name:'))).toBe(true);
    expect(issues.some((i) => i.startsWith('supportedInterfaces.0.url:'))).toBe(true);
    expect(issues.some((i) => i.startsWith('skills:'))).toBe(true);
    expect(refusedCardIssues(clean)).toEqual([]);
    expect(refusedCardIssues([1, 2])).toEqual([expect.stringContaining('not a JSON object')]);
  });
});

describe('agent inspect shows the warnings', () => {
  let box: Sandbox | undefined;
  afterEach(() => box?.dispose());

  it('in --json and in the human text, for a card file', async () => {
    box = sandbox();
    const file = join(box.home, 'flawed-card.json');
    writeFileSync(
      file,
      JSON.stringify({
        ...flawed,
        supportedInterfaces: [...flawed.supportedInterfaces, { url: 'http://127.0.0.1:9/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
      }),
    );
    const json = await box.run(['agent', 'inspect', file, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const warnings: Array<{ code: string }> = json.json().data.card_warnings;
    expect(warnings.map((w) => w.code)).toEqual(
      expect.arrayContaining(['missing_description', 'missing_skills', 'relative_url', 'unsupported_binding', 'version_mismatch']),
    );
    const human = await box.run(['agent', 'inspect', file]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/Card warnings \(\d+ warning\(s\), \d+ note\(s\); the card stays usable\)/);
    expect(human.stdout).toContain('! missing_skills (skills): the card lists no skills');
    expect(human.stdout).toContain('! unsupported_binding (supportedInterfaces.2.protocolBinding)');
  });
});
