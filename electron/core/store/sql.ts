/**
 * One statement text for both engines. A statement is written once with `?` for each parameter, in order; SQLite runs
 * it as written, and PostgreSQL reads `$1..$n` in their place (a `?` inside a quoted literal is left alone). Where the
 * engines really differ (a cast, `FOR UPDATE`, a JSON operator), a named fragment (`differ(sqlite, postgres)`) says so
 * inside the one text. Statements are built once, when their module loads: running one costs nothing more.
 */

/** A piece of statement text as each engine reads it, its parameters still `?`. */
export interface Fragment {
  readonly sqlite: string;
  readonly postgres: string;
}

/** A whole statement: SQLite's text, and PostgreSQL's with `$1..$n`. */
export interface Statement {
  readonly sqlite: string;
  readonly postgres: string;
}

/** A fragment that each engine writes its own way. */
export const differ = (sqlite: string, postgres: string): Fragment => ({ sqlite, postgres });

/** Text (a column list, a table), a number, or a fragment, spliced in place. */
type Part = string | number | Fragment;

/** A fragment to splice into statements (`?` still unnumbered). */
export function fragment(strings: TemplateStringsArray, ...parts: Part[]): Fragment {
  let sqlite = strings[0]!;
  let postgres = strings[0]!;
  parts.forEach((part, i) => {
    sqlite += (typeof part === 'object' ? part.sqlite : String(part)) + strings[i + 1]!;
    postgres += (typeof part === 'object' ? part.postgres : String(part)) + strings[i + 1]!;
  });
  return { sqlite, postgres };
}

/** A statement: `sql\`SELECT * FROM agents WHERE alias = ?\``. */
export function sql(strings: TemplateStringsArray, ...parts: Part[]): Statement {
  const text = fragment(strings, ...parts);
  return { sqlite: text.sqlite, postgres: numbered(text.postgres) };
}

/** `text` with its `?` parameters (outside quoted literals) numbered `$1..$n`, as PostgreSQL reads them. */
export function numbered(text: string): string {
  let n = 0;
  // A quoted literal matches whole and is kept as it is (an unterminated one runs to the end); a `?` outside one is
  // numbered. One pass of the regular expression: every statement is numbered when its module loads, on SQLite too.
  return text.replace(/'[^']*(?:'|$)|\?/g, (match) => (match === '?' ? `$${++n}` : match));
}
