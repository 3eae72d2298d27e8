/**
 * One retry after a 401: when a call's credentials can be renewed (an OAuth2 access token the agent no longer
 * accepts), `call.reauth` renews them and the call is sent once more with the new ones; a second 401 is the error.
 * A stream is reopened only when the 401 came before its first event. `reauthenticating` is the client's decorator
 * (client.ts); `streamWithReauth` also serves the gateway's follower (sse.ts `openStream`).
 */
import { MissiveError } from '../../../shared/errors.js';
import type { BindingCall } from './binding-call.js';
import type { A2ATransport } from './operations.js';

const UNAUTHORIZED = 'missive::auth::unauthorized';

const isUnauthorized = (error: unknown) => error instanceof MissiveError && error.code === UNAUTHORIZED;

/** The call with the renewed credentials (and no further retry), or null when nothing can be renewed. */
async function renewedCall<C extends BindingCall>(call: C): Promise<C | null> {
  const renewed = await call.reauth?.();
  if (!renewed) return null;
  return { ...call, headers: { ...call.headers, ...renewed.headers }, secrets: [...(call.secrets ?? []), ...renewed.secrets], reauth: undefined };
}

export async function withReauth<T>(call: BindingCall, run: (call: BindingCall) => Promise<T>): Promise<T> {
  try {
    return await run(call);
  } catch (error) {
    if (!call.reauth || !isUnauthorized(error)) throw error;
    const renewed = await renewedCall(call);
    if (!renewed) throw error;
    return run(renewed);
  }
}

export async function* streamWithReauth<C extends BindingCall, T>(call: C, open: (call: C) => AsyncGenerator<T>): AsyncGenerator<T> {
  let started = false;
  try {
    for await (const item of open(call)) {
      started = true;
      yield item;
    }
  } catch (error) {
    if (started || !call.reauth || !isUnauthorized(error)) throw error;
    const renewed = await renewedCall(call);
    if (!renewed) throw error;
    yield* open(renewed);
  }
}

/** The decorator: the transport `make` builds for `call`, rebuilt once with renewed credentials after a 401. */
export function reauthenticating(call: BindingCall, make: (call: BindingCall) => A2ATransport): A2ATransport {
  if (!call.reauth) return make(call);
  return {
    unary: (method, params) => withReauth(call, (c) => make(c).unary(method, params)),
    stream: (method, params, options) => streamWithReauth(call, (c) => make(c).stream(method, params, options)),
  };
}
