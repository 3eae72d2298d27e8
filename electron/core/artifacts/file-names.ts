/**
 * File names for artifacts written to disk. Remote names are untrusted: only the last path segment survives,
 * anything outside [A-Za-z0-9._-] becomes `_`, no leading dots, no Windows device names, bounded length,
 * and collisions inside one export get `-2`, `-3`, … suffixes.
 */
const WINDOWS_DEVICES = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;
const MAX_STEM = 96;

const EXTENSIONS: Record<string, string> = {
  'text/plain': '.txt',
  'text/markdown': '.md',
  'text/csv': '.csv',
  'text/html': '.html',
  'application/json': '.json',
  'application/xml': '.xml',
  'application/yaml': '.yaml',
  'application/pdf': '.pdf',
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/svg+xml': '.svg',
};

export const extensionFor = (mediaType: string | null | undefined, fallback = '.bin') =>
  (mediaType && EXTENSIONS[mediaType.split(';')[0]!.trim().toLowerCase()]) ?? fallback;

/** One safe path segment from an untrusted name, or `fallback` when nothing usable is left. */
export function safeSegment(name: string | null | undefined, fallback: string): string {
  const last =
    String(name ?? '')
      .split(/[\\/]/)
      .pop() ?? '';
  let cleaned = last
    .normalize('NFKC')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .replace(/\.{2,}/g, '.');
  if (!cleaned || cleaned === '_') cleaned = fallback;
  const dot = cleaned.lastIndexOf('.');
  let stem = dot > 0 ? cleaned.slice(0, dot) : cleaned;
  let ext = dot > 0 ? cleaned.slice(dot) : '';
  if (ext.length > 16) {
    stem = cleaned;
    ext = '';
  }
  if (WINDOWS_DEVICES.test(stem)) stem = `_${stem}`;
  return `${stem.slice(0, MAX_STEM)}${ext}`;
}

/** Hands out unique names within one directory (case-insensitive, as on macOS and Windows), never a `reserved` one. */
export function uniqueNamer(reserved: readonly string[] = []): (name: string) => string {
  const taken = new Set<string>(reserved.map((r) => r.toLowerCase()));
  return (name) => {
    const dot = name.lastIndexOf('.');
    const stem = dot > 0 ? name.slice(0, dot) : name;
    const ext = dot > 0 ? name.slice(dot) : '';
    let candidate = name;
    for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${stem}-${n}${ext}`;
    taken.add(candidate.toLowerCase());
    return candidate;
  };
}
