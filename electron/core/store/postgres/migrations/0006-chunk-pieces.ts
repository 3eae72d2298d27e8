/**
 * PostgreSQL schema v6: SQLite's v15 column (migrations/0015-chunk-pieces.ts), so the statements both engines share
 * count an artifact's received chunks the same way. PostgreSQL writes one row per chunk (`pieces` 1): it has no tick.
 * A constant default rewrites no row.
 */
export const name = 'chunk_pieces';

export const sql = `
ALTER TABLE artifact_chunks ADD COLUMN pieces INTEGER NOT NULL DEFAULT 1 CHECK (pieces >= 1);
`;
