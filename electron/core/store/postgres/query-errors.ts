/**
 * What a failed PostgreSQL statement becomes: a `storage` error (exit 75) with a stable code. A message never carries
 * connection details (host, port, user, database, password): errors of the connection classes, and errors raised by
 * the driver or the network rather than the server, are reported by their code alone. A server's message about the
 * statement itself (a constraint's name, a missing table) is kept; its DETAIL (which quotes row values) never is.
 */
import { isMissiveError, storageError, toMissiveError, type MissiveError } from '../../../../shared/errors.js';

/** The fields of a pg DatabaseError this module reads (pg's own class is not imported: it would load pg). */
interface PgErrorFields {
  code?: unknown;
  severity?: unknown;
  constraint?: unknown;
}

/**
 * The SQLSTATE of a server error (five characters), or undefined for driver and network errors. Only the server's
 * errors have a severity: a network error's code (`EPIPE`) can look like a SQLSTATE.
 */
export function sqlState(error: unknown): string | undefined {
  const { code, severity } = (error ?? {}) as PgErrorFields;
  return typeof code === 'string' && typeof severity === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** The constraint a server error names (unique, foreign key, check violations), if any. */
export const violatedConstraint = (error: unknown): string | undefined => {
  const constraint = (error as PgErrorFields | null)?.constraint;
  return typeof constraint === 'string' ? constraint : undefined;
};

/** Connection exception, invalid authorization, unknown database, operator intervention, too many connections. */
const UNREACHABLE = /^(08|28|3D|57P|53300)/;

/** `error` (from a statement doing `what`, e.g. "agents.insert") as a storage error; MissiveErrors pass unchanged. */
export function queryFailure(error: unknown, what: string): MissiveError {
  if (isMissiveError(error)) return error;
  const state = sqlState(error);
  // A TypeError or the like is a bug here, not the store's doing: it stays an internal error. The driver's and the
  // network's errors are plain Errors (an AggregateError when every address of a host name refused).
  if (state === undefined && !(error instanceof Error && (error.name === 'Error' || error.name === 'AggregateError'))) return toMissiveError(error);
  if (state === undefined || UNREACHABLE.test(state)) {
    const code = (error as { code?: unknown } | null)?.code;
    const why = typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code) ? ` (${code})` : '';
    return storageError(
      'store_unreachable',
      `the PostgreSQL store could not be used for ${what}${why}`,
      'Check that the server is up and reachable: missive doctor',
    );
  }
  const message = (error as Error).message;
  if (state === '40001' || state === '40P01') {
    return storageError(
      'conflict',
      `${what} collided with another missive writing the same rows at the same time; nothing was written (${state})`,
      'Run the command again.',
    );
  }
  if (state === '3F000' || state === '42P01') {
    return storageError('schema_missing', `${what}: the store's schema is not set up (${message})`, 'Check the store with: missive doctor');
  }
  if (state.startsWith('23')) return storageError('constraint', `${what} was refused by the store: ${message} (${state})`);
  return storageError('query_failed', `${what} failed in the PostgreSQL store: ${message} (${state})`);
}
