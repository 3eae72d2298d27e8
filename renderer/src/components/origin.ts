/**
 * The origin of an interface URL or gRPC target, spelled as the core spells it (`electron/core/security/origins.ts`:
 * scheme reduced to http/https, host, explicit port), so the inspect panel can compare each interface of a card with
 * the origins an agent's credentials are pinned to. The renderer cannot import the core; this mirrors its rules.
 */
const SECURE = new Set(['https:', 'grpcs:']);
const KNOWN = new Set(['http:', 'https:', 'grpc:', 'grpcs:']);
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

const isLoopback = (host: string) => host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);

/** `https://a.example/x` → `https://a.example:443`; a bare gRPC `host:port` is plaintext on loopback, TLS elsewhere; null when not a URL. */
export function originOf(url: string): string | null {
  const text = url.trim().replace(/^dns:\/{0,3}/i, '');
  let parsed: URL;
  try {
    parsed = new URL(HAS_SCHEME.test(text) ? text : `grpc://${text}`);
  } catch {
    return null;
  }
  if (!KNOWN.has(parsed.protocol) || !parsed.hostname) return null;
  const host = parsed.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const secure = HAS_SCHEME.test(text) ? SECURE.has(parsed.protocol) : !isLoopback(host);
  const port = parsed.port ? Number(parsed.port) : secure ? 443 : 80;
  return `${secure ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
