/** Golden machine output of `agent inspect --json`: the contract scripts depend on. MISSIVE_UPDATE_GOLDENS=1 rewrites it. */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startRawServer, type RawServer } from '../support/raw-server.js';
import { sandbox } from '../support/cli.js';

const goldenPath = new URL('../../fixtures/a2a/1.0/cli/agent-inspect.json', import.meta.url);
const cardFixture = new URL('../../fixtures/a2a/1.0/cli/golden-card.json', import.meta.url);
let server: RawServer;

beforeAll(async () => {
  server = await startRawServer();
  const card = JSON.parse(readFileSync(cardFixture, 'utf8').replaceAll('{{BASE}}', ''));
  server.route('/.well-known/agent-card.json', (_req, res) =>
    json(res, 200, JSON.parse(JSON.stringify(card).replaceAll('http://agent.invalid', server.url)), {
      etag: '"golden-1"',
      'last-modified': 'Tue, 01 Dec 2026 09:00:00 GMT',
    }),
  );
});
afterAll(() => server.close());

const normalise = (text: string, base: string) =>
  JSON.parse(text.replaceAll(base, 'http://agent.invalid').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<timestamp>'));

describe('golden output', () => {
  it('agent inspect --json matches the golden document', async () => {
    const box = sandbox();
    try {
      await box.run(['agent', 'add', 'golden', server.url, '--tag', 'fixture']);
      const res = await box.run(['agent', 'inspect', 'golden', '--json']);
      expect(res.code).toBe(0);
      const actual = normalise(res.stdout, server.url);
      if (process.env.MISSIVE_UPDATE_GOLDENS === '1') writeFileSync(goldenPath, `${JSON.stringify(actual, null, 2)}\n`);
      expect(actual).toEqual(JSON.parse(readFileSync(goldenPath, 'utf8')));
    } finally {
      box.dispose();
    }
  });
});
