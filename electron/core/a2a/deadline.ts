/**
 * The timing decorator: a call that must be answered by a shared deadline (a collective's members share one) gets,
 * when it is made, only the time left before it, capped by its own time limit; a deadline already passed is a timeout
 * before anything is sent.
 */
import { transportError } from '../../../shared/errors.js';
import type { BindingCall } from './binding-call.js';
import type { A2ATransport } from './operations.js';

/** Time left before `deadline` (epoch ms), capped by `timeoutMs`; a passed deadline is a timeout before sending. */
export function remainingMs(deadline: number, timeoutMs: number): number {
  const left = deadline - Date.now();
  if (left <= 0) throw transportError('timeout', 'the deadline passed before the request was sent', 'Raise --timeout.');
  return Math.min(left, timeoutMs);
}

/** The transport `make` builds for `call`, built at each call with the time left before `deadline` as its limit. */
export function deadlined(call: BindingCall, deadline: number, make: (call: BindingCall) => A2ATransport): A2ATransport {
  const now = () => make({ ...call, timeoutMs: remainingMs(deadline, call.timeoutMs) });
  return {
    unary: async (method, params) => now().unary(method, params),
    async *stream(method, params, options) {
      yield* now().stream(method, params, options);
    },
  };
}
