/** Local names the operator picks (agent aliases, group names, auth ref names): one identifier rule for all of them. */
import { usageError } from '../../../shared/errors.js';
import { identifier } from '../config/schema.js';

/** `alias` if it is a valid identifier, else a usage error naming `what` (e.g. "group name") and the rule it breaks. */
export function validateAlias(alias: string, what = 'alias'): string {
  const result = identifier.safeParse(alias);
  if (!result.success) throw usageError('invalid_alias', `${what} "${alias}" ${result.error.issues[0]!.message}`);
  return alias;
}
