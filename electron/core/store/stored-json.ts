/**
 * Reading columns back from the store as outside data. A row holds what missive wrote, unless someone else wrote it:
 * another database user or a teammate on the shared PostgreSQL store, a tool on the SQLite file (which can even turn
 * the CHECK constraints off). So every JSON column is decoded here, with the wire's bound on nesting (MAX_JSON_DEPTH:
 * everything after the parse recurses) and a check of its shape, and every text column read as one of a few values
 * (a task's state) is checked to be one; a row that fails is `storage::corrupt_row` (exit 75), naming the table, the
 * row's key and the column, with how to repair or remove it — never "a bug in missive".
 *
 * A value may come as JSON text (every `*_json` column of both engines today) or already parsed (a jsonb column, which
 * the pg driver decodes): its depth is measured either way. No zod is loaded here: the common shapes are plain checks,
 * and a caller with a richer shape brings its own schema (`storedJsonAs`).
 */
import { storageError, type MissiveError } from '../../../shared/errors.js';
import { isTooDeep, isValueTooDeep, MAX_JSON_DEPTH } from '../security/json-depth.js';

/** A row as a corrupt_row error names it: its table and its key (one column, or a few that name it together). */
export interface StoredRow {
  table: string;
  key: Readonly<Record<string, string | number | null>>;
}

export const storedRow = (table: string, key: StoredRow['key']): StoredRow => ({ table, key });

/** A key value as the message shows it: JSON-quoted (control characters escaped), cut after 120 characters. */
const shown = (value: string | number | null): string => {
  const text = typeof value === 'string' && value.length > 120 ? `${value.slice(0, 120)}…` : value;
  return JSON.stringify(text);
};

const labelOf = (row: StoredRow): string =>
  Object.entries(row.key)
    .map(([column, value]) => `${column} ${shown(value)}`)
    .join(', ');

/** `DELETE FROM table WHERE …;` for the help, or null when a key is too long to be worth typing. */
function deleteStatement(row: StoredRow): string | null {
  const terms: string[] = [];
  for (const [column, value] of Object.entries(row.key)) {
    if (value === null) terms.push(`${column} IS NULL`);
    else if (typeof value === 'number') terms.push(`${column} = ${value}`);
    // eslint-disable-next-line no-control-regex -- a key holding a control character is not quoted into the message: it is left out
    else if (value.length > 200 || /[\u0000-\u001f\u007f]/.test(value)) return null;
    else terms.push(`${column} = '${value.replace(/'/g, "''")}'`);
  }
  return `DELETE FROM ${row.table === 'groups' ? '"groups"' : row.table} WHERE ${terms.join(' AND ')};`;
}

/** What to do about a corrupt row of `table`: the journal is append-only, everything else can be repaired or removed. */
function helpFor(row: StoredRow, column: string): string {
  const changed = 'It was changed outside missive (another database user, a teammate on the shared store, or a tool on the file)';
  const remove = deleteStatement(row);
  if (row.table === 'events') {
    return `${changed}. events list, tail and export show it marked corrupt; other commands that need it fail. The journal is append-only: only the store's administrator can remove it${remove ? ` (${remove} — on PostgreSQL with the events_append_only trigger disabled)` : ''}.`;
  }
  return `${changed}. Restore its ${column} from a backup, or remove the row${remove ? `: ${remove}` : ''} (missive doctor shows where the store is).`;
}

/** The error of a row that cannot be read: `problem` says what is wrong with `column` ("is not valid JSON (…)"). */
export function corruptRow(row: StoredRow, column: string, problem: string): MissiveError {
  return storageError('corrupt_row', `the ${row.table} row with ${labelOf(row)} cannot be read: its ${column} ${problem}`, helpFor(row, column));
}

/** The shapes a JSON column is checked against without a schema, and what each decodes to. */
export interface StoredShapes {
  any: unknown;
  object: Record<string, unknown>;
  array: unknown[];
  strings: string[];
  /** An object of strings (an agent's interface URLs). */
  'string-record': Record<string, string>;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

const SHAPES: { [S in keyof StoredShapes]: [test: (value: unknown) => boolean, problem: string] } = {
  any: [() => true, ''],
  object: [isObject, 'is not a JSON object'],
  array: [Array.isArray, 'is not a JSON array'],
  strings: [(v) => Array.isArray(v) && v.every((s) => typeof s === 'string'), 'is not a JSON array of strings'],
  'string-record': [(v) => isObject(v) && Object.values(v).every((s) => typeof s === 'string'), 'is not a JSON object of strings'],
};

/** The value of a JSON column, depth-checked: parsed from text, or as the driver parsed it. */
function decoded(value: unknown, row: StoredRow, column: string): unknown {
  if (typeof value === 'string') {
    if (isTooDeep(value)) throw corruptRow(row, column, `nests JSON deeper than ${MAX_JSON_DEPTH} levels`);
    try {
      return JSON.parse(value);
    } catch (error) {
      throw corruptRow(row, column, `is not valid JSON (${(error as Error).message})`);
    }
  }
  if (value === undefined) throw corruptRow(row, column, 'is missing');
  if (isValueTooDeep(value)) throw corruptRow(row, column, `nests JSON deeper than ${MAX_JSON_DEPTH} levels`);
  return value;
}

/**
 * A JSON column of `row` decoded: JSON text (or a value the driver parsed) nested at most MAX_JSON_DEPTH deep, of
 * `shape` (default any JSON); otherwise `storage::corrupt_row` naming the row and the column.
 */
export function storedJson<S extends keyof StoredShapes = 'any'>(value: unknown, row: StoredRow, column: string, shape?: S): StoredShapes[S] {
  const parsed = decoded(value, row, column);
  const [test, problem] = SHAPES[shape ?? 'any'];
  if (!test(parsed)) throw corruptRow(row, column, problem);
  return parsed as StoredShapes[S];
}

/** A schema a caller brings (a zod schema, typically): only `safeParse` is called. */
export interface StoredSchema<T> {
  safeParse(
    value: unknown,
  ): { success: true; data: T } | { success: false; error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> } };
}

/**
 * A JSON column of `row` decoded as storedJson does, then checked by `schema`: its parsed data is returned (a zod
 * schema's defaults and transforms applied), or `storage::corrupt_row` naming the row, the column and the first issue.
 *
 * The gateway's jobs decode `gateway_jobs.request_json` with this: `storedJsonAs(job.request_json,
 * storedRow('gateway_jobs', { job_id: job.job_id }), 'request_json', requestSchema)`.
 */
export function storedJsonAs<T>(value: unknown, row: StoredRow, column: string, schema: StoredSchema<T>): T {
  const result = schema.safeParse(decoded(value, row, column));
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length ? `${issue.path.map(String).join('.')}: ` : '';
  throw corruptRow(row, column, `does not hold what missive stores there (${where}${issue?.message ?? 'invalid'})`);
}

/**
 * A JSON column that is kept as text (its reader decodes it later) checked now as storedJson checks it: the text
 * itself, or `storage::corrupt_row`. Null passes when `nullable`.
 */
export function checkedJsonText<N extends boolean = false>(
  value: unknown,
  row: StoredRow,
  column: string,
  shape: keyof StoredShapes = 'any',
  nullable?: N,
): N extends true ? string | null : string {
  if (value === null && nullable) return null as never;
  if (typeof value !== 'string') throw corruptRow(row, column, 'is not JSON text');
  storedJson(value, row, column, shape);
  return value as never;
}

/** A text column that holds one of `allowed` (a task's state), or `storage::corrupt_row` naming the row and the value. */
export function storedEnum<T extends string>(value: unknown, allowed: readonly T[], row: StoredRow, column: string): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  const text = typeof value === 'string' ? shown(value) : value === null ? 'null' : `a ${typeof value}`;
  throw corruptRow(row, column, `is ${text}, not one of ${allowed.join(', ')}`);
}

/**
 * SQLite's reading of a JSON field in SQL (`json_extract(column, path)`) that never fails: SQLite's JSON functions
 * throw "malformed JSON" on a document that is not JSON or nests deeper than SQLite reads (1000 levels), which only a
 * row changed outside missive holds. Such a row reads as if the field were absent (NULL), so it reaches the decoders
 * above, which name it, rather than failing the whole statement unnamed.
 */
export const sqliteJsonField = (column: string, path: string): string => `(CASE WHEN json_valid(${column}) THEN json_extract(${column}, '${path}') END)`;
