/** The journal's outcome filter, written once for both engines: each gives its own expression of a payload field. */

/**
 * What `--outcome failed` keeps: a failed call or run (types ending in .failed, .rejected, .timeout or .error: sends,
 * streams, card fetches, refused callbacks, collective members, reduces, jobs; and the counts of refused callbacks,
 * a2a.push.rejected_summary), a task that ended failed or rejected
 * (as send, stream, task get|wait|cancel or barrier saw it), a collective whose summary is not a success, and an MCP
 * tool call that failed (missive.mcp.call with an error_code). `field`
 * writes the engine's expression of a payload field by its path (SQLite's in repos/journal-query.ts, PostgreSQL's in postgres/repos/journal-reads.ts).
 */
export function failedOutcomeSql(field: (path: readonly string[]) => string): string {
  return `(
  event_type LIKE '%.failed' OR event_type LIKE '%.rejected' OR event_type LIKE '%.timeout' OR event_type LIKE '%.error'
  OR event_type = 'a2a.push.rejected_summary'
  OR (event_type = 'a2a.send.completed' AND ${field(['task', 'state'])} IN ('failed', 'rejected'))
  OR (event_type IN ('a2a.stream.completed', 'a2a.task.updated', 'a2a.task.cancel_requested') AND ${field(['state'])} IN ('failed', 'rejected'))
  OR (event_type LIKE 'missive.%.completed' AND ${field(['status'])} IN ('failed', 'partial_failure', 'timeout'))
  OR (event_type = 'missive.mcp.call' AND ${field(['error_code'])} IS NOT NULL)
)`;
}
