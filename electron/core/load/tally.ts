/**
 * A load run's failures by kind: the missive error (`protocol::task_not_found`, `transport::connection_refused`) and
 * the HTTP status when the agent answered one (`http 503`; `MissiveError.httpStatus`, set where the answer is read), each
 * with its count and its first message, redacted.
 */
import { toMissiveError } from '../../../shared/errors.js';
import { redactText } from '../security/redact.js';
import type { ErrorTally } from './types.js';

export class ErrorTallies {
  private readonly byKey = new Map<string, ErrorTally>();
  private total = 0;

  /** Counts one failure; `secrets` are the connection's credentials (redacted from the kept example). */
  add(error: unknown, secrets: readonly string[] = []): void {
    const err = toMissiveError(error);
    const reason = err.code.split('::').slice(2).join('::') || 'unexpected';
    const status = err.httpStatus ?? null;
    const key = reason === 'http_status' && status !== null ? `http ${status}` : `${err.category}::${reason}`;
    this.total++;
    const known = this.byKey.get(key);
    if (known) {
      known.count++;
      return;
    }
    this.byKey.set(key, { key, category: err.category, code: reason, http_status: status, count: 1, first_example: redactText(err.message, secrets) });
  }

  /** A failure of the generator itself (the in-flight cap), counted like the agent's. */
  addOwn(category: string, code: string, message: string): void {
    this.total++;
    const key = `${category}::${code}`;
    const known = this.byKey.get(key);
    if (known) known.count++;
    else this.byKey.set(key, { key, category, code, http_status: null, count: 1, first_example: message });
  }

  get count(): number {
    return this.total;
  }

  /** The kinds, most frequent first. */
  list(): ErrorTally[] {
    return [...this.byKey.values()].sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
  }
}
