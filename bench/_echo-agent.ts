/**
 * The peer of `npm run bench -- mcp`, run as its own process so that the in-process send and send_message through an
 * `mcp serve` child both reach it across a process boundary, as a real agent is reached: the embedded echo agent (the
 * SDK's own server) without streaming. Prints its base URL on stdout; exits when stdin closes.
 *
 *   node dist/bench/_echo-agent.js
 */
import { startEmbeddedAgent } from '../electron/core/demo/embedded-agent.js';

const agent = await startEmbeddedAgent({ behaviour: 'echo', streaming: false });
process.stdout.write(`${agent.baseUrl}\n`);
process.stdin.resume();
process.stdin.once('end', () => void agent.close().then(() => process.exit(0)));
