/**
 * Free text a user gives that is stored as text (an agent's or a group's notes, a keyring service or account, an auth
 * scheme): any character but U+0000. Neither store may hold it as the user gave it: PostgreSQL's text refuses it, and
 * SQLite's would keep a value that every C string reading it cuts short. Refused alike on both stores, before anything
 * is written, naming the field.
 */
import { usageError } from '../../../shared/errors.js';

export function storedText<T extends string | null | undefined>(value: T, field: string): T {
  if (typeof value === 'string' && value.includes('\u0000')) {
    throw usageError(
      'invalid_text',
      `${field} contains a NUL character (U+0000), which missive does not store: nothing was changed`,
      `Give ${field} without it.`,
    );
  }
  return value;
}
