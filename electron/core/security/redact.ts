/**
 * Redaction is a contract: every output envelope, journal payload, export and log line passes through here.
 * Keys are normalised (alphanumerics only, lowercased) before matching; anything under a `headers` key keeps
 * its auth scheme but loses the credential; free text loses the credential-shaped word that follows `Bearer `,
 * `Basic ` or `Token ` (`looksLikeCredential`; a word of prose such as `tokens`, `OAuth2` or `(reads` stays).
 */

export const REDACTED = '[REDACTED]';

const SECRET_KEYS = new Set([
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'apikey',
  'xapikey',
  'xauthtoken',
  'xcsrftoken',
  'token',
  'secret',
  'password',
  'passwd',
  'credential',
  'credentials',
  'clientsecret',
  'refreshtoken',
  'accesstoken',
  'accesskey',
  'privatekey',
  'sessiontoken',
]);

const SECRET_SUFFIXES = ['token', 'secret', 'password', 'apikey'];
/** Keys that end like secrets but are protocol cursors or counters, not credentials. */
const NOT_SECRET_KEYS = new Set(['pagetoken', 'nextpagetoken', 'maxtokens', 'maxoutputtokens', 'tokencount', 'continuationtoken']);
const HEADER_CONTAINERS = new Set(['headers', 'httpheaders']);
const AUTH_SCHEMES = ['bearer', 'basic', 'token', 'apikey', 'api-key'];

export const normaliseKey = (key: string): string => key.replace(/[^a-z0-9]/gi, '').toLowerCase();

/**
 * What each key is, cached: the same few keys (`parts`, `text`, `taskId`, …) come back in every event of a stream,
 * and normalising them with a regex each time cost more than the rest of the walk. Bounded: hostile payloads with
 * endless distinct keys only empty it.
 */
const keyKinds = new Map<string, { secret: boolean; headers: boolean }>();
const KEY_CACHE_MAX = 4096;

function kindOf(key: string): { secret: boolean; headers: boolean } {
  let kind = keyKinds.get(key);
  if (!kind) {
    if (keyKinds.size >= KEY_CACHE_MAX) keyKinds.clear();
    kind = { secret: classifySecret(key), headers: HEADER_CONTAINERS.has(normaliseKey(key)) };
    keyKinds.set(key, kind);
  }
  return kind;
}

/** True when a JSON key names a secret (its value is replaced whole). */
export const isSecretKey = (key: string): boolean => kindOf(key).secret;

function classifySecret(key: string): boolean {
  const k = normaliseKey(key);
  if (k.length === 0) return false;
  if (SECRET_KEYS.has(k)) return true;
  if (NOT_SECRET_KEYS.has(k)) return false;
  return SECRET_SUFFIXES.some((suffix) => k.endsWith(suffix));
}

/** `Bearer abc` → `Bearer [REDACTED]`; an unknown shape becomes `[REDACTED]`. */
export function redactHeaderValue(value: string): string {
  const match = /^\s*([A-Za-z][A-Za-z-]*)\s+\S/.exec(value);
  if (match && AUTH_SCHEMES.includes(match[1]!.toLowerCase())) return `${match[1]} ${REDACTED}`;
  return REDACTED;
}

const FREE_TEXT_CREDENTIAL = /\b(Bearer|Basic|Token|bearer|basic)(\s+)([^\s,;"']+)/g;
/** Brackets before the word after a scheme (`sec-bearer (reads …)`, `a bearer [see …]`): never part of a credential. */
const LEADING_PUNCTUATION = /^[([{<]+/;
/** Sentence punctuation that ends the word after a scheme (`Use Bearer tokens.`): not part of it. */
const TRAILING_PUNCTUATION = /[.:!?)\]}>]+$/;
/** A word as prose writes it: letters, and at most one version digit after a short name (`OAuth2`, `Auth0`). */
const PROSE_SHAPE = /^([A-Za-z]+)$|^([A-Za-z]{1,6})[0-9]$/;
/** The parts of a camel-cased word: acronyms (`TLS`, `JWT`) and words with or without a capital (`open`, `Id`). */
const WORD_SEGMENT = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+/g;

/** A word part a person could read aloud: no run of five consonants, and a vowel once it is `vowelFrom` letters long. */
function pronounceable(segment: string, vowelFrom: number): boolean {
  const lower = segment.toLowerCase();
  return !/[^aeiouy]{5}/.test(lower) && (lower.length < vowelFrom || /[aeiouy]/.test(lower));
}

/**
 * Whether `word` is a word of prose (`tokens`, `JWTs`, `OAuth2`, `openIdConnect`, `mTLS`, `https`): letters (a short
 * name may end in one digit), no letter three times in a row, and either a lowercase word of five letters at most or
 * camel-case segments (at most four; at most one a single letter and one an acronym of five capitals at most) that
 * are pronounceable, with three vowels in ten once it is 12 letters long. Random strings (base64, hex, generated keys)
 * fail one of these almost surely: about 1 in 200 random base64 strings of 12 characters reads like a word, fewer
 * than 1 in 2,000 of 16, none seen in 10^5 of 20 or more.
 */
function isProseWord(word: string): boolean {
  const shape = PROSE_SHAPE.exec(word);
  const letters = shape?.[1] ?? shape?.[2];
  if (!letters || /(.)\1\1/i.test(letters)) return false;
  if (/^[a-z]{1,5}$/.test(letters)) return true;
  const segments = letters.match(WORD_SEGMENT) ?? [];
  const acronyms = segments.filter((s) => /^[A-Z]+$/.test(s));
  if (segments.length > 4 || acronyms.length > 1 || segments.filter((s) => s.length === 1).length > 1) return false;
  // Alone, a word needs a vowel from six letters on (`mtls`); in a camel-cased word, from five (`httpAuth`).
  const vowelFrom = segments.length > 1 ? 5 : 6;
  if (!segments.every((s) => (/^[A-Z]+$/.test(s) ? s.length <= 5 : pronounceable(s, vowelFrom)))) return false;
  return letters.length < 12 || (letters.match(/[aeiouy]/gi)?.length ?? 0) * 10 >= letters.length * 3;
}

/**
 * Whether the word after `Bearer `/`Basic `/`Token ` in free text is a credential rather than prose: anything that
 * is not a word of prose (`isProseWord`). A digit inside (`sk-123`, `s3cret`), a symbol (`abc.def`, `realm=x`, and
 * `alice-token-of-the-real-one`, so `token-based` too), a case pattern no word has (base64: `dXNlcjpwYXNz`) or letters
 * no one could read aloud (`qwertyuiopasdfghjkl`) make a credential; `tokens`, `OAuth2` or `openIdConnect` stay. A
 * secret made of words (`hunter`, `TopSecret`) reads as prose: only the literal known secrets catch those.
 */
export const looksLikeCredential = (word: string): boolean => !isProseWord(word);

/**
 * The credential in the word after a scheme, redacted, with the brackets and punctuation around it kept; null when
 * that word is prose (or was redacted already: text scrubbed twice stays the same).
 */
function redactedCandidate(candidate: string): string | null {
  if (candidate.includes(REDACTED)) return null;
  const lead = LEADING_PUNCTUATION.exec(candidate)?.[0] ?? '';
  const rest = candidate.slice(lead.length);
  const word = rest.replace(TRAILING_PUNCTUATION, '');
  if (!word || !looksLikeCredential(word)) return null;
  return `${lead}${REDACTED}${rest.slice(word.length)}`;
}

/** Scrubs credentials out of free text: error messages, log lines, command stderr. */
export function redactText(text: string, knownSecrets: readonly string[] = []): string {
  let out = '';
  let from = 0;
  const pattern = FREE_TEXT_CREDENTIAL;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const [whole, scheme, space, candidate] = match as unknown as [string, string, string, string];
    const redacted = redactedCandidate(candidate);
    if (redacted === null) {
      // A word of prose, perhaps the next scheme (`bearer Bearer eyJ…`): look again right after this scheme.
      pattern.lastIndex = match.index + scheme.length;
      continue;
    }
    out += `${text.slice(from, match.index)}${scheme}${space}${redacted}`;
    from = match.index + whole.length;
  }
  out += text.slice(from);
  for (const secret of knownSecrets) {
    if (secret.length >= 4) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** Scrubs `key=value` and `"key":"value"` fragments for secret-like keys (for log lines). */
export function redactLogLine(line: string, knownSecrets: readonly string[] = []): string {
  const kv = line
    .replace(/("([^"\\]+)"\s*:\s*)"((?:[^"\\]|\\.)*)"/g, (m, prefix: string, key: string) => (isSecretKey(key) ? `${prefix}"${REDACTED}"` : m))
    .replace(/\b([A-Za-z0-9_.-]+)=([^\s&,;]+)/g, (m, key: string) => (isSecretKey(key) ? `${key}=${REDACTED}` : m));
  return redactText(kv, knownSecrets);
}

/**
 * Deep copy of a JSON-like value with every secret removed. Never mutates its input.
 * `knownSecrets` are literal values (resolved tokens) scrubbed wherever they appear in strings.
 */
export function redactValue<T>(value: T, knownSecrets: readonly string[] = []): T {
  return walk(value, knownSecrets, false) as T;
}

/**
 * Deep copy with only the literal known secrets replaced: for remote content (task JSON, artifacts, messages) that
 * must stay byte-faithful otherwise, so no key-based guessing. An agent echoing our token back never stores it.
 */
export function scrubSecrets<T>(value: T, knownSecrets: readonly string[]): T {
  const secrets = knownSecrets.filter((s) => s.length >= 4);
  if (secrets.length === 0) return value;
  const visit = (v: unknown): unknown => {
    if (typeof v === 'string') return secrets.reduce((text, secret) => text.split(secret).join(REDACTED), v);
    if (Array.isArray(v)) return v.map(visit);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, inner]) => [k, visit(inner)]));
  };
  return visit(value) as T;
}

/**
 * `redactValue` for values that are only serialised or read afterwards (journal payloads on their way to SQLite):
 * the same redaction, but every object or array in which nothing was redacted is returned as it is, not copied. A
 * stream event with no secret in it comes back unchanged, with no allocation. The result may share structure with
 * the input, so neither may be mutated afterwards.
 */
export function redactShared<T>(value: T, knownSecrets: readonly string[] = []): T {
  return share(value, knownSecrets, false) as T;
}

function share(value: unknown, secrets: readonly string[], underHeaders: boolean): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const copy = share(value[i], secrets, underHeaders);
      if (copy !== value[i]) (out ??= value.slice())[i] = copy;
    }
    return out ?? value;
  }
  if (value instanceof Date || Object.getPrototypeOf(value) !== Object.prototype) return walk(value, secrets, underHeaders);
  let out: Record<string, unknown> | undefined;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const inner = (value as Record<string, unknown>)[key];
    const kind = kindOf(key);
    let copy: unknown;
    if (underHeaders && typeof inner === 'string') copy = kind.secret ? redactHeaderValue(inner) : redactText(inner, secrets);
    else if (kind.secret && inner !== null && inner !== undefined)
      copy = typeof inner === 'string' && /^\s*\w+\s+\S/.test(inner) ? redactHeaderValue(inner) : REDACTED;
    else copy = share(inner, secrets, kind.headers);
    if (copy === inner) continue;
    // The first change copies the object (own enumerable keys, in order); `__proto__` stays data, as in `walk`.
    out ??= copyOwn(value as Record<string, unknown>);
    if (key === '__proto__') Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
    else out[key] = copy;
  }
  return out ?? value;
}

function copyOwn(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === '__proto__') Object.defineProperty(out, key, { value: inner, enumerable: true, writable: true, configurable: true });
    else out[key] = inner;
  }
  return out;
}

function walk(value: unknown, secrets: readonly string[], underHeaders: boolean): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  if (Array.isArray(value)) return value.map((item) => walk(item, secrets, underHeaders));
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return value.toISOString();
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const kind = kindOf(key);
    let copy: unknown;
    if (underHeaders && typeof inner === 'string') {
      copy = kind.secret ? redactHeaderValue(inner) : redactText(inner, secrets);
    } else if (kind.secret && inner !== null && inner !== undefined) {
      copy = typeof inner === 'string' && /^\s*\w+\s+\S/.test(inner) ? redactHeaderValue(inner) : REDACTED;
    } else {
      copy = walk(inner, secrets, kind.headers);
    }
    // A `__proto__` key from outside JSON is defined, not assigned, so it stays data instead of becoming the copy's
    // prototype (assignment is kept for the rest: this walk runs over every journal payload).
    if (key === '__proto__') Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
    else out[key] = copy;
  }
  return out;
}

/** Strips userinfo, query and fragment from a URL for logs and diagnostics. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return url.toString();
  } catch {
    return redactText(raw);
  }
}
