/**
 * The process-wide pooled undici dispatcher (connections are reused across requests and agents). A module of its own
 * so that the CLI's entry can close it at exit without loading the HTTP layer (http.ts and its error tables) into
 * commands that never make a request.
 */
import type { Agent } from 'undici';
import { loadUndici } from './undici.js';

let shared: Agent | undefined;

export async function sharedDispatcher(): Promise<Agent> {
  const { Agent } = await loadUndici();
  shared ??= new Agent({ connections: 128, keepAliveTimeout: 10_000, pipelining: 1 });
  return shared;
}

/** Closes the dispatcher if one was made (a command that made no request has none). */
export async function closeSharedDispatcher(): Promise<void> {
  const agent = shared;
  shared = undefined;
  if (agent) await agent.close();
}
