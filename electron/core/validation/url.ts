/** HTTP(S) URLs the operator gives (agent base URLs, interface URLs, push callbacks), checked before anything is stored or sent. */
import { usageError } from '../../../shared/errors.js';
import { httpUrl } from '../config/schema.js';

/** A URL's text with any `user:password@` userinfo replaced, for error messages. */
export const withoutUserinfo = (url: string): string => url.replace(/\/\/[^@/]*@/, '//[REDACTED]@');

/** `url` if it is a valid http(s) URL, else a usage error naming `what` (e.g. "callback URL"), userinfo redacted. */
export function validateBaseUrl(url: string, what = 'base URL'): string {
  const result = httpUrl.safeParse(url);
  if (!result.success) throw usageError('invalid_url', `${what} "${withoutUserinfo(url)}" ${result.error.issues[0]!.message}`);
  return url;
}
