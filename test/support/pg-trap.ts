/**
 * "Nothing reaches PostgreSQL": a loopback listener that counts the connections made to it, and the libpq variables
 * (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE) pointing at it. A process given these variables and no
 * store URL that opened any PostgreSQL connection (pg reads the PG* variables when it gets no connection string)
 * would show up in `connections()`. As test/integration/store-selection.test.ts checks it for the registry commands.
 */
import { createServer, type Socket } from 'node:net';

export interface PgTrap {
  /** PG* variables pointing at the listener. */
  env: Record<string, string>;
  /** How many connections reached the listener. */
  connections(): number;
  close(): Promise<void>;
}

export async function pgTrap(): Promise<PgTrap> {
  const sockets: Socket[] = [];
  const listener = createServer((socket) => {
    sockets.push(socket);
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = (listener.address() as { port: number }).port;
  return {
    env: { PGHOST: '127.0.0.1', PGPORT: String(port), PGUSER: 'postgres', PGPASSWORD: 'pg-trap-pass-1', PGDATABASE: 'postgres', PGSSLMODE: 'disable' },
    connections: () => sockets.length,
    close: () => new Promise((resolve) => listener.close(() => resolve())),
  };
}
