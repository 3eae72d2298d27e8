/**
 * A send that fails after its request was recorded always leaves `a2a.send.failed` in the journal, with the error
 * report (code, category, message) every other failure has, the request's message id and context, and never the
 * agent's credentials: whether the agent refused the call or answered with neither a task nor a message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDb, sandbox } from '../support/cli.js';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';

const TOKEN = 'tok-send-failure-7c1e9a';

let server: RawServer;
beforeAll(async () => {
  server = await startRawServer();
  for (const name of ['empty', 'down'])
    server.route(`/${name}/.well-known/agent-card.json`, (_req, res) => json(res, 200, minimalCard(`${server.url}/${name}`)));
  // Answers HTTP 200 with a body that is neither a task nor a message.
  server.route('/empty/a2a/rest/message:send', (_req, res) => json(res, 200, {}));
  server.route('/down/a2a/rest/message:send', (_req, res) => json(res, 503, { error: { code: 503, message: 'overloaded' } }));
});
afterAll(() => server.close());

interface EventRow {
  event_type: string;
  context_id: string | null;
  payload_json: string;
}

async function sendTo(alias: string) {
  const box = sandbox({ MY_TOKEN: TOKEN });
  await box.run(['agent', 'add', alias, `${server.url}/${alias}`]);
  const res = await box.run(['send', alias, 'hello', '--context', 'ctx-failures', '--bearer-token-env', 'MY_TOKEN', '--json']);
  const events = readDb(
    box,
    (db) => db.prepare(`SELECT event_type, context_id, payload_json FROM events WHERE event_type LIKE 'a2a.send.%' ORDER BY sequence`).all() as EventRow[],
  );
  box.dispose();
  return { res, events };
}

describe('send failures in the journal', () => {
  it('journals an answer that is neither task nor message as a protocol error (exit 76)', async () => {
    const { res, events } = await sendTo('empty');
    expect(res.code).toBe(76);
    const code = JSON.parse(res.stderr).data.code as string;
    expect(code).toMatch(/^missive::protocol::invalid_/);
    expect(events.map((e) => e.event_type)).toEqual(['a2a.send.started', 'a2a.send.failed']);
    const [started, failed] = events.map((e) => JSON.parse(e.payload_json));
    expect(failed.message_id).toBe(started.message_id);
    expect(failed.error).toMatchObject({ code, category: 'protocol', exit_code: 76 });
    expect(events[1]!.context_id).toBe('ctx-failures');
    expect(JSON.stringify(events)).not.toContain(TOKEN);
  });

  it('journals a refused call with its transport error, and no completion', async () => {
    const { res, events } = await sendTo('down');
    expect(res.code).toBe(69);
    expect(events.map((e) => e.event_type)).toEqual(['a2a.send.started', 'a2a.send.failed']);
    const failed = JSON.parse(events[1]!.payload_json);
    expect(failed.error).toMatchObject({ category: 'transport', exit_code: 69 });
    expect(failed.error.message).toMatch(/HTTP 503/);
    expect(events[1]!.context_id).toBe('ctx-failures');
    expect(JSON.stringify(events)).not.toContain(TOKEN);
    expect(server.requests.some((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });
});
