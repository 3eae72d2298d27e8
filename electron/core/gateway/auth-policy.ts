/**
 * Which auth refs a gateway may use: the operator's `[gateway] job_auth_refs`, whatever its queue asks for. On a shared
 * store the queue is written by anyone who can write the store, so a gateway there uses none but the listed ones (an
 * unset list allows none); on the local SQLite store, the queue is the user's own, and an unset list allows every ref
 * the user defined. The list narrows what auth/host-trust.ts allows; it never widens it (a listed ref must still be
 * bound on this host, its agents confirmed here).
 */
import type { Core } from '../handle.js';
import { isSharedStore } from '../store/selection.js';

export function allowedAuthRefs(core: Core): ReadonlySet<string> | undefined {
  const listed = core.config.gateway.jobAuthRefs;
  if (listed) return new Set(listed);
  return isSharedStore(core.storeSelection) ? new Set() : undefined;
}

/** `core` as the gateway uses it: the same core, reading only the auth refs its operator allows. */
export function gatewayCore(core: Core): Core {
  const allowed = allowedAuthRefs(core);
  if (!allowed) return core;
  return Object.create(core, { authRefsAllowed: { value: allowed, enumerable: true } }) as Core;
}
