/**
 * The built renderer (dist/renderer) as the web console serves it: files resolved strictly inside the directory,
 * and index.html with the app's own Content-Security-Policy, changed in one place: `connect-src 'self'`, since the
 * page talks to the console over fetch where the Electron window talks over IPC (`'none'`).
 */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { MissiveError } from '../../../shared/errors.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

const META_CSP = /(<meta\s+http-equiv=["']Content-Security-Policy["']\s+content=")([^"]*)(")/i;
/** The renderer's policy (renderer/index.html), used when a build carries none. */
const FALLBACK_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'";

/** The page's policy with `connect-src 'self'` in place of whatever it said. */
export function withConnectSelf(policy: string): string {
  const directives = policy
    .split(';')
    .map((d) => d.trim())
    .filter(Boolean);
  const others = directives.filter((d) => !/^connect-src(\s|$)/i.test(d));
  return [...others, "connect-src 'self'"].join('; ');
}

/** The header policy: the page's, with connect-src 'self' and frame-ancestors 'none' (which a meta tag cannot set). */
export function consolePolicy(pagePolicy: string): string {
  const directives = withConnectSelf(pagePolicy)
    .split('; ')
    .filter((d) => !/^frame-ancestors(\s|$)/i.test(d));
  return [...directives, "frame-ancestors 'none'"].join('; ');
}

export interface RendererFiles {
  /** The Content-Security-Policy header value for every response. */
  policy: string;
  /** A file's bytes and type, or null when the path is not a file inside the renderer directory. */
  read(urlPath: string): Promise<{ body: Buffer; type: string } | null>;
}

export const rendererMissing = (dir: string) =>
  new MissiveError('io', 'renderer_missing', `the built renderer is missing: no index.html in ${dir}`, {
    exitCode: 69,
    help: 'Run `npm run build` in the missive directory (it builds dist/renderer), or use a packaged release.',
  });

/** The path inside `root` a URL path names, or null for anything that would leave it (`..`, NUL, backslashes). */
export function resolveInside(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (!decoded.startsWith('/') || decoded.includes('\0') || decoded.includes('\\')) return null;
  if (decoded.split('/').some((segment) => segment === '..' || segment === '.')) return null;
  const file = resolve(root, `.${decoded}`);
  return file.startsWith(root + sep) ? file : null;
}

export async function loadRenderer(dir: string): Promise<RendererFiles> {
  const root = resolve(dir);
  const indexFile = resolve(root, 'index.html');
  if (!existsSync(indexFile)) throw rendererMissing(root);
  const html = await readFile(indexFile, 'utf8');
  const pagePolicy = META_CSP.exec(html)?.[2] ?? FALLBACK_POLICY;
  const index = Buffer.from(
    html.replace(META_CSP, (_m, open: string, policy: string, close: string) => `${open}${withConnectSelf(policy)}${close}`),
    'utf8',
  );
  return {
    policy: consolePolicy(pagePolicy),
    async read(urlPath) {
      if (urlPath === '/' || urlPath === '/index.html') return { body: index, type: TYPES['.html']! };
      const file = resolveInside(root, urlPath);
      if (!file) return null;
      const info = await stat(file).catch(() => null);
      if (!info?.isFile()) return null;
      return { body: await readFile(file), type: TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream' };
    },
  };
}
