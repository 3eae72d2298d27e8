/**
 * The agent rows as repos/agents.ts reads them: `listAgents` (rows read as arrays, by column position) gives every
 * field exactly as `getAgent` (one row as an object) does, and the config sync's narrow queries agree with the rows.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../electron/core/store/db.js';
import {
  agentSource,
  getAgent,
  insertAgent,
  listAgents,
  listSeededAliases,
  storeCard,
  setCardKeys,
  markCardValidated,
} from '../../electron/core/store/repos/agents.js';
import { upsertAuthRef } from '../../electron/core/store/repos/auth-refs.js';

const dbPath = () => join(mkdtempSync(join(tmpdir(), 'missive-agents-repo-')), 'm.sqlite3');

describe('agent rows', () => {
  it('lists every field of every agent as getAgent reads it', () => {
    const db = openDatabase(dbPath());
    upsertAuthRef(db, {
      name: 'main',
      kind: 'env',
      source: 'local',
      headerName: 'X-Key',
      scheme: '',
      envVar: 'MAIN',
      keyringService: null,
      keyringAccount: null,
      flow: { type: 'header' },
    });
    insertAgent(db, {
      alias: 'full',
      source: 'config_seed',
      baseUrl: 'https://full.example',
      interfaceUrls: { grpc: 'grpc.example:50051' },
      bindingPreference: ['grpc', 'json-rpc'],
      authRefName: 'main',
      tags: ['a', 'b'],
      notes: 'n',
      metadata: { team: 'ops', n: 1 },
      trustedOrigins: ['https://api.example'],
      allowCrossOriginAuth: true,
      clientTls: { certFile: '/c.pem', keyFile: '/k.pem', caFile: '/ca.pem', passphraseRef: 'main' },
      readOnly: true,
    });
    storeCard(db, 'full', {
      json: { name: 'Full' },
      url: 'https://full.example/.well-known/agent-card.json',
      etag: '"e"',
      lastModified: 'Tue, 01 Dec 2026 00:00:00 GMT',
    });
    markCardValidated(db, 'full');
    setCardKeys(db, 'full', { jwksUrl: 'https://full.example/jwks.json', jwksFile: '/jwks.json' });
    insertAgent(db, { alias: 'bare', source: 'local', baseUrl: 'http://127.0.0.1:1' });
    insertAgent(db, { alias: 'another', source: 'config_seed', baseUrl: 'http://127.0.0.1:2' });

    const listed = listAgents(db);
    expect(listed.map((a) => a.alias)).toEqual(['another', 'bare', 'full']);
    expect(listed).toEqual(['another', 'bare', 'full'].map((alias) => getAgent(db, alias)));
    expect(listed[2]).toMatchObject({
      readOnly: true,
      allowCrossOriginAuth: true,
      card: { json: { name: 'Full' }, etag: '"e"' },
      cardKeys: { jwksFile: '/jwks.json' },
    });
    // Another query after the raw one reads objects again (the raw statement is its own).
    expect(getAgent(db, 'bare')).toMatchObject({ alias: 'bare', source: 'local' });

    expect(listSeededAliases(db)).toEqual(['another', 'full']);
    expect([agentSource(db, 'full'), agentSource(db, 'bare'), agentSource(db, 'ghost')]).toEqual(['config_seed', 'local', undefined]);
    db.close();
  });
});
