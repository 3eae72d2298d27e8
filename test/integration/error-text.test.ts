/** What a peer says in an error reaches the user as one short line: never a multi-line HTML page or message. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox } from '../support/cli.js';
import { json, minimalCard, startRawServer, type RawServer } from '../support/raw-server.js';

const PAGE = `<!DOCTYPE html>
<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx</center>
</body>
</html>
`;

let server: RawServer;
beforeAll(async () => {
  server = await startRawServer();
  server.route('/.well-known/agent-card.json', (_req, res) =>
    json(
      res,
      200,
      minimalCard(server.url, {
        supportedInterfaces: [
          { url: `${server.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
          { url: `${server.url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        ],
      }),
    ),
  );
  server.route('/a2a/rest/message:send', (_req, res) => void res.writeHead(502, { 'content-type': 'text/html' }).end(PAGE));
  server.route('/rpc', (_req, res, body) =>
    json(res, 200, { jsonrpc: '2.0', id: JSON.parse(body).id, error: { code: -32603, message: 'model failed\n  at step 3\n  at step 4' } }),
  );
});
afterAll(() => server.close());

describe('remote error text', () => {
  it('reduces an HTML error page to its title (exit 69)', async () => {
    const box = sandbox();
    try {
      await box.run(['agent', 'add', 'proxy', server.url]);
      const res = await box.run(['send', 'proxy', 'hi']);
      expect(res.code).toBe(69);
      expect(res.stderr).toMatch(
        /^missive: transport error: SendMessage at http:\/\/127\.0\.0\.1:\d+\/a2a\/rest\/message:send answered HTTP 502: 502 Bad Gateway\n$/,
      );
    } finally {
      box.dispose();
    }
  });

  it('puts a multi-line JSON-RPC error message on one line (exit 76)', async () => {
    const box = sandbox();
    try {
      await box.run(['agent', 'add', 'rpc', server.url, '--binding-preference', 'json-rpc']);
      const res = await box.run(['send', 'rpc', 'hi', '--json']);
      expect(res.code).toBe(76);
      expect(JSON.parse(res.stderr).data.message).toBe('protocol error: SendMessage failed with JSON-RPC error -32603: model failed at step 3 at step 4');
    } finally {
      box.dispose();
    }
  });
});
