/**
 * Resolved auth headers. The raw values never serialise: JSON, util.inspect and toString all show them redacted.
 */
import { inspect } from 'node:util';
import { redactHeaderValue } from '../security/redact.js';

export class AuthHeaders {
  readonly #values = new Map<string, { name: string; value: string }>();

  /** A later header with the same (case-insensitive) name replaces an earlier one. */
  set(name: string, value: string): this {
    this.#values.set(name.toLowerCase(), { name, value });
    return this;
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  get size(): number {
    return this.#values.size;
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
    return out.filter((s) => s.length >= 4);
  }

  redacted(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const { name, value } of this.#values.values()) out[name] = redactHeaderValue(value);
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
