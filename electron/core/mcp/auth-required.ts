/**
 * What an `auth_required` task asks for, in words an AI client can pass on to its user: the URLs the agent named in
 * its status message (where to sign in), and the security schemes its card requires (as `agent add` warns about them).
 * missive never signs in on the client's behalf: credentials are the user's to add (`missive auth add`).
 */
import type { Core } from '../handle.js';
import { loadCard } from '../agents/discovery.js';
import { describeScheme, securitySchemesOf } from '../a2a/security-schemes.js';
import { requiredSchemes } from '../../../shared/auth-needed.js';

const URLS = /\bhttps?:\/\/[^\s"'<>()[\]{}]+/gi;
const MAX_URLS = 5;

/** The http(s) URLs of a text, in order, each once (trailing punctuation dropped). */
export function namedUrls(text: string | null): string[] {
  const found = (text?.match(URLS) ?? []).map((url) => url.replace(/[.,;:!?]+$/, ''));
  return [...new Set(found)].slice(0, MAX_URLS);
}

/** One or two lines: the URLs the agent named, and the schemes its card requires; empty when it names neither. */
export async function authDetail(core: Core, alias: string, reply: string | null): Promise<string> {
  const lines: string[] = [];
  const urls = namedUrls(reply);
  if (urls.length) lines.push(`The agent named: ${urls.join(', ')}.`);
  try {
    const schemes = requiredSchemes(securitySchemesOf((await loadCard(core, alias)).card));
    if (schemes.length)
      lines.push(
        `Its card requires ${schemes.map((s) => `"${s.name}" (${describeScheme(s)})`).join(' and ')}: the user adds that credential with \`missive auth add\` and binds it with \`missive agent set ${alias} --auth-ref <name>\`.`,
      );
  } catch {
    // The card is unreadable now: the URLs (if any) are all there is to say.
  }
  return lines.join('\n');
}
