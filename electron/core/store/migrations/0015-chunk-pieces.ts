/**
 * Schema v15: a stored chunk may hold several received chunks. A stream's tick appends the parts of every chunk it
 * brings for an artifact as one `artifact_chunks` row (update-sink.ts), not one row per chunk: `pieces` says how many
 * received chunks the row holds, so an artifact's `chunks` (task get, the thread, MCP) still counts what the agent
 * sent. Rows written before hold one each. Adding the column rewrites no row; SQLite checks the constraint against
 * the existing rows in one scan of the table.
 */
export const name = 'chunk_pieces';

export const sql = `
ALTER TABLE artifact_chunks ADD COLUMN pieces INTEGER NOT NULL DEFAULT 1 CHECK (pieces >= 1);
`;
