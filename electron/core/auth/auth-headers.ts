/**
 * Resolved auth material: headers, query parameters (an API key `in = "query"`) and the literal secrets behind them.
 * The raw values never serialise: JSON, util.inspect and toString all show them redacted.
 */
import { inspect } from 'node:util';
import { REDACTED, redactHeaderValue } from '../security/redact.js';

export class AuthHeaders {
  readonly #values = new Map<string, { name: string; value: string }>();
  readonly #query = new Map<string, string>();
  readonly #secrets = new Set<string>();

  /** A later header with the same (case-insensitive) name replaces an earlier one. */
  set(name: string, value: string): this {
    this.#values.set(name.toLowerCase(), { name, value });
    return this;
  }

  /** A query parameter every request URL carries (its value is a secret). */
  setQuery(name: string, value: string): this {
    this.#query.set(name, value);
    return this.addSecret(value);
  }

  /** A literal secret behind a header or parameter (a password inside Basic, a cookie's value) to scrub too. */
  addSecret(value: string): this {
    this.#secrets.add(value);
    return this;
  }

  /** The raw query parameters, for the transport only (undefined when there are none). */
  toQuery(): Record<string, string> | undefined {
    return this.#query.size ? Object.fromEntries(this.#query) : undefined;
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  /** How many credentials (headers and query parameters) this carries. */
  get size(): number {
    return this.#values.size + this.#query.size;
  }

  /** The raw headers, for the transport only. */
  toHeaders(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const { name, value } of this.#values.values()) out[name] = value;
    return out;
  }

  /** Literal secret values, so redaction can scrub them from any text that echoes them. */
  secrets(): string[] {
    const out: string[] = [];
    for (const { value } of this.#values.values()) {
      out.push(value);
      const space = value.indexOf(' ');
      if (space > 0) out.push(value.slice(space + 1));
    }
    for (const secret of this.#secrets) out.push(secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2));
    return [...new Set(out)].filter((s) => s.length >= 4);
  }

  redacted(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const { name, value } of this.#values.values()) out[name] = redactHeaderValue(value);
    for (const name of this.#query.keys()) out[`?${name}`] = REDACTED;
    return out;
  }

  toJSON() {
    return this.redacted();
  }

  toString() {
    return JSON.stringify(this.redacted());
  }

  [inspect.custom]() {
    return `AuthHeaders ${JSON.stringify(this.redacted())}`;
  }
}
