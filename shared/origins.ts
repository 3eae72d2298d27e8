/**
 * Origins, reduced to what decides where bytes go: transport security, host and port. Used to pin credentials to the
 * origin an agent was registered at, to dial gRPC targets, and by the renderer's interface table to show which
 * interfaces of a card the credentials may go to. Isomorphic (WHATWG URL only).
 */

/** An origin reduced to what decides where bytes go: transport security, host and port. */
export interface OriginKey {
  secure: boolean;
  host: string;
  port: number;
}

const SECURE = new Set(['https:', 'grpcs:']);
const KNOWN = new Set(['http:', 'https:', 'grpc:', 'grpcs:']);

/** `https://a.example/x` → https, a.example, 443. A bare gRPC target `host:port` is taken as plaintext on loopback, TLS elsewhere. */
export function originKey(url: string): OriginKey | null {
  const text = url.trim().replace(/^dns:\/{0,3}/i, '');
  let parsed: URL;
  try {
    parsed = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `grpc://${text}`);
  } catch {
    return null;
  }
  if (!KNOWN.has(parsed.protocol) || !parsed.hostname) return null;
  const host = parsed.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const bare = !/^[a-z][a-z0-9+.-]*:\/\//i.test(text);
  const secure = bare ? !isLoopbackHost(host) : SECURE.has(parsed.protocol);
  const port = parsed.port ? Number(parsed.port) : secure ? 443 : 80;
  return { secure, host, port };
}

export const formatOrigin = (o: OriginKey): string => `${o.secure ? 'https' : 'http'}://${o.host.includes(':') ? `[${o.host}]` : o.host}:${o.port}`;

/** The origin of an interface URL or gRPC target as text (`https://a.example:443`), or null when it is not one. */
export function originOf(url: string): string | null {
  const key = originKey(url);
  return key ? formatOrigin(key) : null;
}

export const sameOrigin = (a: OriginKey, b: OriginKey): boolean => a.secure === b.secure && a.host === b.host && a.port === b.port;

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h);
}
