/** `missive load`'s error tally: kinds by missive error and HTTP status, first examples redacted. */
import { describe, expect, it } from 'vitest';
import { ErrorTallies } from '../../electron/core/load/tally.js';
import { protocolError, transportError, withHttpStatus } from '../../shared/errors.js';

describe('ErrorTallies', () => {
  it('counts by category::code, and by HTTP status when the agent answered one, most frequent first', () => {
    const tally = new ErrorTallies();
    for (let i = 0; i < 3; i++) tally.add(protocolError('task_not_found', `task ${i} not found`));
    tally.add(withHttpStatus(transportError('http_status', 'SendMessage at http://127.0.0.1:1/rpc answered HTTP 503: busy'), 503));
    tally.add(withHttpStatus(transportError('http_status', 'SendMessage at http://127.0.0.1:1/rpc answered HTTP 503: still busy'), 503));
    tally.add(transportError('connection_refused', 'nothing listens at 127.0.0.1:1'));
    tally.add(new Error('boom'));
    expect(tally.count).toBe(7);
    expect(tally.list()).toEqual([
      { key: 'protocol::task_not_found', category: 'protocol', code: 'task_not_found', http_status: null, count: 3, first_example: 'task 0 not found' },
      { key: 'http 503', category: 'transport', code: 'http_status', http_status: 503, count: 2, first_example: expect.stringMatching(/HTTP 503: busy$/) },
      { key: 'internal::unexpected', category: 'internal', code: 'unexpected', http_status: null, count: 1, first_example: 'boom' },
      {
        key: 'transport::connection_refused',
        category: 'transport',
        code: 'connection_refused',
        http_status: null,
        count: 1,
        first_example: 'nothing listens at 127.0.0.1:1',
      },
    ]);
  });

  it('keeps no credential in a first example: the connection secrets and bearer tokens are redacted', () => {
    const tally = new ErrorTallies();
    tally.add(protocolError('invalid_params', 'the agent echoed key s3cret-api-key-value and Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc'), [
      's3cret-api-key-value',
    ]);
    const [kind] = tally.list();
    expect(kind!.first_example).not.toMatch(/s3cret-api-key-value|eyJhbGciOiJIUzI1NiJ9/);
    expect(kind!.first_example).toMatch(/\[REDACTED\]/);
  });
});
