/** One schema migration of either engine (migrations/ for SQLite, postgres/migrations/), applied in version order. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
