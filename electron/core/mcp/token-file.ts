/**
 * `missive mcp serve --http --token-file <path>`: one token kept across launches, so a client's configuration need not
 * change every time the server starts. The file is read when it is there (the rules of every secret file missive reads:
 * a regular file, no access for the group or other users, its first line the secret; security/secret-file.ts), and
 * otherwise created 0600 with a new random token. The token is never printed: the output names the file instead.
 */
import { lstat } from 'node:fs/promises';
import { configError } from '../../../shared/errors.js';
import { readSecretFile } from '../security/secret-file.js';
import { writePrivateFile } from '../security/private-files.js';
import { newToken } from '../web-console/guard.js';

/** Printable ASCII without spaces (a Bearer token, and safe in a URL once encoded), and long enough to guess at no rate. */
const FIT_TOKEN = /^[\x21-\x7e]{32,512}$/;

const HELP = 'Give --token-file a path of your own (it is created 0600 with a new token when missing), or remove the file to get a new token.';

/** The token in `path`, or a new one written there (0600); whether it was created. */
export async function loadOrCreateToken(path: string): Promise<{ token: string; created: boolean }> {
  const exists = await lstat(path).then(
    () => true,
    // Anything but "missing" (a folder, no permission) is left to readSecretFile, which says what is wrong.
    (error: NodeJS.ErrnoException) => error.code !== 'ENOENT',
  );
  if (!exists) {
    const token = newToken();
    writePrivateFile(path, `${token}\n`);
    return { token, created: true };
  }
  const token = await readSecretFile(path, { from: '--token-file', help: HELP });
  if (!FIT_TOKEN.test(token))
    throw configError('mcp_token_unfit', `the token in ${path} (from --token-file) must be 32 to 512 printable characters without spaces`, HELP);
  return { token, created: false };
}
