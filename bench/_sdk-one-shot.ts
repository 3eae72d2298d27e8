/**
 * The baseline of `npm run bench -- send`: what a user writes instead of `missive send`, one process that fetches
 * the Agent Card, sends one message with the official SDK client and prints the answer's text.
 *
 *   node dist/bench/_sdk-one-shot.js BASE_URL [HTTP+JSON|JSONRPC]
 */
import { randomUUID } from 'node:crypto';
import { SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';

const [baseUrl, transport = 'HTTP+JSON'] = process.argv.slice(2);
const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [transport] }));
const client = await factory.createFromUrl(baseUrl!);
const answer = await client.sendMessage(SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'ping' }] } }));
const parts = 'messageId' in answer ? answer.parts : (answer.status?.message?.parts ?? []);
process.stdout.write(`${parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('')}\n`);
