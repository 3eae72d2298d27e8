/**
 * Where a key of a TOML file is written: the line of `a.b.c` (1-based), for error messages and `config show`. TOML
 * parsers give no positions for values, so this reads the text line by line: `[table]` and `[[array]]` headers set
 * the current table, `key = …` (bare, quoted or dotted keys) names a key under it. The line whose key is the longest
 * prefix of the path wins (a value inside an inline table is found at its key's line); a table header counts too.
 */

/** The keys of a dotted TOML key (`a."b.c".d` → a, b.c, d), or null when the text is not one. */
function splitKey(text: string): string[] | null {
  const keys: string[] = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(\.|$)/y;
  let at = 0;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m) return null;
    keys.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]!));
    at = re.lastIndex;
    if (m[4] === '') break;
  }
  return keys.length ? keys : null;
}

/** The key part of `key = value` (up to the first `=` outside quotes), or null. */
function keyOfAssignment(line: string): string | null {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote) {
      if (ch === '\\' && quote === '"') i++;
      else if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '=') return line.slice(0, i);
    else if (ch === '#') return null;
  }
  return null;
}

const isPrefix = (prefix: readonly string[], path: readonly string[]) => prefix.length <= path.length && prefix.every((k, i) => k === String(path[i]));

/** The 1-based line where `path` (or its nearest written ancestor) is set in `text`, or undefined. */
export function locateKey(text: string, path: readonly (string | number)[]): number | undefined {
  const want = path.map(String);
  let table: string[] = [];
  let best: { line: number; depth: number } | undefined;
  const consider = (keys: string[], line: number) => {
    if (keys.length && isPrefix(keys, want) && (!best || keys.length > best.depth)) best = { line, depth: keys.length };
  };
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    const header = /^\[\[?([^\]]+)\]\]?\s*(#.*)?$/.exec(line);
    if (header) {
      table = splitKey(header[1]!) ?? [];
      consider(table, index + 1);
      return;
    }
    const key = keyOfAssignment(line);
    const keys = key === null ? null : splitKey(key.trim());
    if (keys) consider([...table, ...keys], index + 1);
  });
  return best?.line;
}
