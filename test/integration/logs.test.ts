/**
 * `missive logs`: the profile's log files (newest lines, every secret redacted, terminal escapes made visible, JSON
 * lines' level and time), an empty log directory said as such, and the event journal as log records.
 */
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmbeddedAgent, type EmbeddedAgent } from '../../electron/core/demo/embedded-agent.js';
import { appendEvent } from '../../electron/core/store/repos/events.js';
import { openStore } from '../../electron/core/store/store.js';
import { sandbox, type Sandbox } from '../support/cli.js';

const SECRETS = ['abc123bearer-secret', 'kv-secret-4455', 'sk-live-json-9988', 'hunter2-cookie-77'];

let box: Sandbox;
let logs: string;
beforeEach(() => {
  box = sandbox();
  logs = join(box.home, 'state/profiles/default/logs');
});
afterEach(() => box.dispose());

function writeLogs() {
  mkdirSync(logs, { recursive: true });
  const old = join(logs, 'old.log');
  writeFileSync(old, 'old line 1\nold line 2\n');
  utimesSync(old, new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:00:00Z'));
  writeFileSync(
    join(logs, 'gateway-service.log'),
    [
      'starting gateway',
      `request failed: Authorization: Bearer ${SECRETS[0]}`,
      `retry token=${SECRETS[1]} attempt=2`,
      `{"level":"warn","time":"2026-12-03T10:00:00Z","msg":"agent slow","api_key":"${SECRETS[2]}"}`,
      `cookie=${SECRETS[3]} \u001b[31mred\u001b[0m done`,
      '',
    ].join('\r\n'),
  );
  writeFileSync(join(logs, 'ignored.bin'), 'password=not-a-log-file-secret\n');
}

describe('missive logs --source profile-files', () => {
  it('shows the newest lines of the log files, redacted and terminal-safe', async () => {
    writeLogs();
    const res = await box.run(['logs']);
    expect(res.code).toBe(0);
    for (const secret of SECRETS) expect(res.stdout).not.toContain(secret);
    expect(res.stdout).toContain('Bearer [REDACTED]');
    expect(res.stdout).toContain('token=[REDACTED] attempt=2');
    expect(res.stdout).toContain('"api_key":"[REDACTED]"');
    expect(res.stdout).toContain('\\x1b[31mred');
    expect(res.stdout).not.toContain('\u001b');
    expect(res.stdout).not.toContain('\r');
    expect(res.stdout).not.toContain('not-a-log-file-secret');
    // Oldest file first, each line with its file and number.
    expect(res.stdout.indexOf('old.log:1  old line 1')).toBeGreaterThan(-1);
    expect(res.stdout.indexOf('old.log:2')).toBeLessThan(res.stdout.indexOf('gateway-service.log:1  starting gateway'));
  });

  it('--json: records with file, line, and the level and time of JSON lines; --limit keeps the newest', async () => {
    writeLogs();
    const json = (await box.run(['logs', '--json'])).json();
    expect(json.kind).toBe('logs');
    expect(json.data.source).toBe('profile-files');
    expect(json.data.files.map((f: { name: string }) => f.name)).toEqual(['old.log', 'gateway-service.log']);
    expect(json.data.count).toBe(7);
    const warn = json.data.records.find((r: { level?: string }) => r.level === 'warn');
    expect(warn).toMatchObject({ file: 'gateway-service.log', line: 4, timestamp: '2026-12-03T10:00:00Z' });
    expect(JSON.stringify(json)).not.toMatch(new RegExp(SECRETS.join('|')));

    const limited = (await box.run(['logs', '--limit', '2', '--json'])).json().data;
    expect(limited.records.map((r: { line: number }) => r.line)).toEqual([4, 5]);
    expect((await box.run(['logs', '--limit', '0'])).code).toBe(64);
    expect((await box.run(['logs', '--source', 'syslog'])).code).toBe(64);
  });

  it('--ndjson: a log_source line, then one log_record per line', async () => {
    writeLogs();
    const lines = (await box.run(['logs', '--ndjson', '--limit', '3'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.kind)).toEqual(['log_source', 'log_record', 'log_record', 'log_record']);
    expect(lines[0].data).toMatchObject({ source: 'profile-files', count: 3 });
    expect(lines.map((l) => l.sequence)).toEqual([0, 1, 2, 3]);
    expect(lines[3].data.message).toContain('cookie=[REDACTED]');
  });

  it('reads only the tail of a large file', async () => {
    mkdirSync(logs, { recursive: true });
    const many = Array.from({ length: 20_000 }, (_, i) => `line ${i + 1} ${'x'.repeat(60)}`).join('\n');
    writeFileSync(join(logs, 'big.log'), `${many}\n`);
    const data = (await box.run(['logs', '--limit', '3', '--json'])).json().data;
    expect(data.records.map((r: { message: string }) => r.message.split(' ').slice(0, 2).join(' '))).toEqual(['line 19998', 'line 19999', 'line 20000']);
  });

  it('says so when there are no log files', async () => {
    const res = await box.run(['logs']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`no log files in ${logs}`);
    expect(res.stdout).toContain('--source event-journal');
    const json = (await box.run(['logs', '--json'])).json();
    expect(json.data).toMatchObject({ count: 0, records: [], note: `no log files in ${logs}` });
  });
});

describe('missive logs --source event-journal', () => {
  let agent: EmbeddedAgent;
  beforeAll(async () => void (agent = await startEmbeddedAgent({ behaviour: 'echo' })));
  afterAll(() => agent.close());

  it('shows the newest journal events as log records, redacted', async () => {
    await box.run(['agent', 'add', 'echo', agent.baseUrl]);
    const sent = await box.run(['send', 'echo', 'deploy now', '--header', 'X-Api-Key: header-secret-112233']);
    expect(sent.code).toBe(0);
    // Free text in a payload (say, a peer's error message) that key-based redaction on write cannot see.
    const store = openStore(join(box.home, 'state/profiles/default/missive.sqlite3'));
    appendEvent(store.db, {
      type: 'a2a.send.failed',
      agentAlias: 'echo',
      payload: { message: 'upstream said password=journal-secret-5566 and header-secret-112233' },
    });
    store.close();
    const res = await box.run(['logs', '--source', 'event-journal', '--header', 'X-Api-Key: header-secret-112233']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/a2a\.send\.completed agent=echo/);
    expect(res.stdout).toMatch(/error\s+a2a\.send\.failed agent=echo .*password=\[REDACTED\]/);
    expect(res.stdout).not.toContain('journal-secret-5566');
    expect(res.stdout).not.toContain('header-secret-112233');

    const json = (await box.run(['logs', '--source', 'event-journal', '--limit', '2', '--json'])).json();
    expect(json.kind).toBe('logs');
    expect(json.data.records.map((r: { type: string }) => r.type)).toEqual(['a2a.send.completed', 'a2a.send.failed']);
    expect(json.data.records[0]).toMatchObject({ source: 'event-journal', level: 'info' });
    expect(json.data.records[1]).toMatchObject({ level: 'error' });
    expect(json.data.records[0].sequence).toBeLessThan(json.data.records[1].sequence);
    expect(JSON.stringify(json)).not.toContain('journal-secret-5566');

    const nd = (await box.run(['logs', '--source', 'event-journal', '--ndjson'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(nd[0].kind).toBe('log_source');
    expect(nd.slice(1).every((l) => l.kind === 'log_record')).toBe(true);
    expect(nd.length).toBeGreaterThan(3);
  });

  it('says so when the journal is empty', async () => {
    const res = await box.run(['logs', '--source', 'event-journal']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('the event journal is empty');
  });
});
