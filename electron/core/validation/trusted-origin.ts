/** `--trust-origin` values: origins besides an agent's own that may receive its credentials, in canonical form. */
import { usageError } from '../../../shared/errors.js';
import { trustedOrigin } from '../config/schema.js';
import { formatOrigin, originKey } from '../../../shared/origins.js';

/** `--trust-origin`: an origin (scheme://host[:port]), kept in the canonical form credential pinning compares. */
export function parseTrustedOrigin(text: string): string {
  const result = trustedOrigin.safeParse(text.trim());
  const key = result.success ? originKey(text.trim()) : null;
  if (!key)
    throw usageError(
      'invalid_origin',
      `--trust-origin "${text}" ${result.success ? 'is not an origin' : result.error.issues[0]!.message}`,
      'Give scheme://host[:port], e.g. https://api.example.com',
    );
  return formatOrigin(key);
}
