/** A real SDK agent (both bindings) registered and inspected the way the README tells a new user to. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedAgent, type EmbeddedAgent } from '../../electron/core/demo/embedded-agent.js';
import { sandbox } from '../support/cli.js';
import { postJsonRpcSend } from '../support/raw-send.js';

let agent: EmbeddedAgent;
beforeAll(async () => {
  agent = await startEmbeddedAgent({ name: 'SDK Echo', skills: [{ id: 'echo', name: 'Echo', tags: ['text', 'demo'] }] });
});
afterAll(() => agent.close());

describe('SDK peer', () => {
  it('registers an SDK agent and inspects it on both bindings', async () => {
    const box = sandbox();
    try {
      expect((await box.run(['agent', 'add', 'echo', agent.baseUrl])).code).toBe(0);
      const rest = await box.run(['agent', 'inspect', 'echo', '--json']);
      expect(rest.code).toBe(0);
      const data = rest.json().data;
      expect(data.card.name).toBe('SDK Echo');
      expect(data.selected_interface).toEqual({
        binding: 'http+json',
        protocol_binding: 'HTTP+JSON',
        url: agent.restUrl,
        tenant: null,
        protocol_version: '1.0',
        dialect: '1.0',
        source: 'agent_card',
        card_index: 0,
        declared_url: null,
        reason: "the card's first interface missive can call",
        skipped: [],
      });
      // Each HTTP URL is listed for 1.0, then again for 0.3 (the agent answers v0.3 clients too).
      expect(
        data.card.supported_interfaces.map((i: { protocol_binding: string; protocol_version: string }) => `${i.protocol_binding} ${i.protocol_version}`),
      ).toEqual(['HTTP+JSON 1.0', 'JSONRPC 1.0', 'JSONRPC 0.3', 'HTTP+JSON 0.3']);
      const rpc = (await box.run(['agent', 'inspect', 'echo', '--binding', 'json-rpc', '--json'])).json().data;
      expect(rpc.selected_interface).toMatchObject({ binding: 'json-rpc', protocol_binding: 'JSONRPC', url: agent.jsonRpcUrl });
      const cardRequest = agent.requests.find((r) => r.path === '/.well-known/agent-card.json')!;
      expect(cardRequest.headers['a2a-version']).toBe('1.0');
      const caps = (await box.run(['agent', 'capabilities', 'echo', '--json'])).json().data;
      expect(caps).toMatchObject({ streaming: true, push_notifications: false });
      expect(caps.labels).toEqual(expect.arrayContaining(['echo', 'text', 'demo', 'streaming']));
      const doctor = await box.run(['doctor', '--json']);
      expect(doctor.code).toBe(0);
      const endpoint = doctor.json().data.checks.find((c: { name: string }) => c.name === 'a2a.endpoint.echo');
      expect(endpoint.status).toBe('ok');
    } finally {
      box.dispose();
    }
  });

  it('serves A2A over both bindings to a plain client (the peer the later messaging commands talk to)', async () => {
    const rpc = await postJsonRpcSend(agent.jsonRpcUrl, 'hi');
    const rpcBody = (await rpc.json()) as { result: { message: { parts: Array<{ text: string }> } } };
    expect(rpcBody.result.message.parts[0]!.text).toBe('echo: hi');
    const rest = await fetch(`${agent.restUrl}/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: 'there' }] } }),
    });
    const restBody = (await rest.json()) as { message: { parts: Array<{ text: string }> } };
    expect(restBody.message.parts[0]!.text).toBe('echo: there');
  });
});
