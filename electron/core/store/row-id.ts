/**
 * Ids of rows missive creates itself (journal events, stored answers, stream events): UUIDv7, time-ordered, so each
 * insert lands at the right edge of its unique index instead of a random page. On a journal of millions of rows a
 * random v4 key dirties a different index page per insert; a stream of 100,000 events commits far fewer pages.
 * Ids that go on the wire (message ids sent to agents, JSON-RPC ids) stay random v4.
 */
import { v7 } from 'uuid';

export const rowId = (): string => v7();
