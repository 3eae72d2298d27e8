/**
 * The whole-process baseline of `npm run bench -- stream`: what a user writes instead of `missive stream`, one process
 * that fetches the Agent Card, streams one message with the official SDK client (decoding each event, storing
 * nothing) and prints how many events it read.
 *
 *   node dist/bench/_sdk-stream-one-shot.js BASE_URL
 */
import { randomUUID } from 'node:crypto';
import { SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';

const [baseUrl] = process.argv.slice(2);
const client = await new ClientFactory().createFromUrl(baseUrl!);
let events = 0;
const request = SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] } });
for await (const _event of client.sendMessageStream(request)) events++;
process.stdout.write(`${events}\n`);
