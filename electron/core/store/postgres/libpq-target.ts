/**
 * Where a store URL leads, filled in as libpq fills a connection string: each setting the URL leaves out comes from its
 * service (`service=` in the URL, else `PGSERVICE`; libpq-service.ts), else from its `PG*` variable, else libpq's
 * default. The `pg` library reads none of the services and only some of the variables, so they are applied here:
 *
 * | setting          | variable            | default                                   |
 * | ---------------- | ------------------- | ----------------------------------------- |
 * | host             | PGHOST              | localhost (pg's; libpq's is its socket)    |
 * | port             | PGPORT              | 5432                                      |
 * | user             | PGUSER              | the OS user                               |
 * | dbname           | PGDATABASE          | the user name                             |
 * | connect_timeout  | PGCONNECT_TIMEOUT   | `[qos] connect_timeout`                   |
 * | sslmode          | PGSSLMODE           | none: no TLS (connect.ts)                 |
 * | sslrootcert      | PGSSLROOTCERT       | none                                      |
 * | sslcert, sslkey  | PGSSLCERT, PGSSLKEY | none                                      |
 * | application_name | PGAPPNAME           | missive                                   |
 * | passfile         | PGPASSFILE          | ~/.pgpass (pgpass.ts)                     |
 *
 * A host that starts with `/` is a unix socket's folder (`postgres:///db?host=/var/run/postgresql`, or PGHOST=/tmp): pg
 * connects to `<folder>/.s.PGSQL.<port>`. A service's `password` counts as the URL's. Other keywords a service sets
 * (hostaddr, target_session_attrs, …) are not used, and a warning says so.
 */
import { userInfo } from 'node:os';
import { configError } from '../../../../shared/errors.js';
import { readService, type ServiceEntry } from './libpq-service.js';

export interface LibpqTarget {
  /**
   * The URL for pg-connection-string: the store URL with the sslmode, sslrootcert, sslcert, sslkey, connect_timeout
   * and application_name its service or variables give added when it names none, and without `service`/`passfile`.
   */
  url: string;
  /** A host name or address, or a unix socket's folder. */
  host: string;
  port: number;
  user: string;
  database: string;
  /** The password the URL (or its service) holds: never printed. */
  password?: string;
  /** The service's or URL's `passfile`, if any (PGPASSFILE is pgpass.ts's). */
  passfile?: string;
  /** The service the URL or PGSERVICE named, and the file it came from. */
  service?: ServiceEntry;
}

const VARIABLES: Record<string, string> = {
  host: 'PGHOST',
  port: 'PGPORT',
  user: 'PGUSER',
  dbname: 'PGDATABASE',
  connect_timeout: 'PGCONNECT_TIMEOUT',
  sslmode: 'PGSSLMODE',
  sslrootcert: 'PGSSLROOTCERT',
  sslcert: 'PGSSLCERT',
  sslkey: 'PGSSLKEY',
  application_name: 'PGAPPNAME',
};

/** The settings pg-connection-string reads from the URL's query (set there when the URL lacks them). */
const QUERY_SETTINGS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'connect_timeout', 'application_name'];
/** What missive takes from a service. */
const SERVICE_SETTINGS = new Set([...Object.keys(VARIABLES), 'password', 'passfile']);

/** `url` (a store URL that parses) with libpq's service, variables and defaults applied. */
export function resolveTarget(url: string, env: NodeJS.ProcessEnv, warn: (message: string) => void, from: string): LibpqTarget {
  const parsed = new URL(url);
  const given: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, value] of parsed.searchParams) if (value !== '') given[key] ??= value;
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  if (parsed.hostname && !given.host) given.host = decode(parsed.hostname).replace(/^\[(.*)\]$/, '$1');
  if (parsed.port && !given.port) given.port = parsed.port;
  if (parsed.username && !given.user) given.user = decode(parsed.username);
  if (parsed.password && !given.password) given.password = decode(parsed.password);
  if (parsed.pathname.length > 1 && !given.dbname) given.dbname = decode(parsed.pathname.slice(1));

  const serviceName = given.service ?? (env.PGSERVICE || undefined);
  const service = serviceName ? readService(serviceName, env, given.service ? `the store URL's service=` : 'PGSERVICE') : undefined;
  for (const key of Object.keys(service?.values ?? {})) {
    if (!SERVICE_SETTINGS.has(key)) warn(`the PostgreSQL service "${service!.name}" (${service!.file}) sets ${key}, which missive does not use: ignored`);
  }
  const value = (key: string): string | undefined => {
    const variable = VARIABLES[key];
    return given[key] || service?.values[key] || (variable ? env[variable] : undefined) || undefined;
  };

  const portText = value('port') ?? '5432';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535) {
    throw configError('invalid_store_url', `the store ${from}: port "${portText}" is not a port number (1 to 65535)`, 'Give a port from 1 to 65535.');
  }
  const user = value('user') ?? osUser(env);

  const forPg = new URL(url);
  for (const key of ['service', 'passfile', 'dbname']) forPg.searchParams.delete(key);
  for (const key of QUERY_SETTINGS) {
    if (forPg.searchParams.has(key) || (key === 'sslmode' && forPg.searchParams.has('ssl'))) continue;
    const found = value(key);
    if (found) forPg.searchParams.set(key, found);
  }
  return {
    url: forPg.toString(),
    host: value('host') ?? 'localhost',
    port,
    user,
    database: value('dbname') ?? user,
    password: given.password || service?.values.password || undefined,
    passfile: given.passfile || service?.values.passfile || undefined,
    service,
  };
}

/** The OS user's name, as libpq takes it (not $USER, which anyone can set; it is the fallback). */
function osUser(env: NodeJS.ProcessEnv): string {
  try {
    return userInfo().username;
  } catch {
    return env.USER || env.USERNAME || 'postgres';
  }
}

/** Where the target is, to print: `host:port`, `[v6]:port`, or `the socket <folder>/.s.PGSQL.<port>`. */
export function targetAddress(target: Pick<LibpqTarget, 'host' | 'port'>): string {
  if (target.host.startsWith('/')) return `the socket ${target.host.replace(/\/+$/, '')}/.s.PGSQL.${target.port}`;
  return target.host.includes(':') ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
}
