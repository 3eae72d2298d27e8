import * as init from './0001-init.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Ordered, append-only. Never edit an applied migration: its checksum is verified on every open. */
export const MIGRATIONS: Migration[] = [{ version: 1, name: init.name, sql: init.sql }];
