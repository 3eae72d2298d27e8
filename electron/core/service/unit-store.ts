/**
 * The store a gateway service uses: what its environment (the unit's `Environment=` lines or the plist's
 * `EnvironmentVariables`) and the config file that environment finds resolve to, by the same rules the service itself
 * follows (config/load.ts, store/selection.ts). Read from an installed file for `gateway status` and `doctor`, and
 * from the environment `gateway install` is about to write, to compare it with the installing shell's store.
 * Connects to nothing; a store URL is only ever shown without its password.
 */
import { existsSync, readFileSync } from 'node:fs';
import { loadConfig } from '../config/load.js';
import { statePaths } from '../config/paths.js';
import { redactStoreUrl } from '../config/store-url.js';
import { selectStore, STORE_PASSWORD_FILE_ENV, type StoreSelection, type StoreUrlSource } from '../store/selection.js';
import type { ServicePlatform } from './types.js';

/** The systemd credential ID of the store's password (the service reads `%d/<ID>`, named by MISSIVE_STORE_PASSWORD_FILE). */
export const STORE_PASSWORD_CREDENTIAL = 'missive-store-password';

/** A store as `gateway status`, `doctor` and `gateway install` show it: never with a password. */
export interface StoreView {
  kind: 'sqlite' | 'postgres';
  /** The PostgreSQL URL without its password, or the SQLite file. */
  display: string;
  /** Where the URL came from (PostgreSQL). */
  from?: StoreUrlSource;
  /** The profile's PostgreSQL schema. */
  schema?: string;
}

/** `url` without the password in its user info or `?password=` / `?sslpassword=`: the URL a service file may name. */
export function withoutPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = '';
  parsed.searchParams.delete('password');
  parsed.searchParams.delete('sslpassword');
  return parsed.toString();
}

/** The view of a selection; a SQLite store shows the profile's file as `env` places it. */
export function storeView(selection: StoreSelection, sqliteFile: string): StoreView {
  if (selection.kind === 'sqlite') return { kind: 'sqlite', display: sqliteFile };
  return { kind: 'postgres', display: redactStoreUrl(withoutPassword(selection.url)), from: selection.from, schema: selection.schema };
}

/** Whether two views name one store (a PostgreSQL URL compared without its password, and the schema). */
export const sameStore = (a: StoreView, b: StoreView): boolean => a.kind === b.kind && a.display === b.display && a.schema === b.schema;

/** In words: `PostgreSQL postgres://team@db:5432/missive (schema missive_default)` or `the SQLite file /…/missive.sqlite3`. */
export const storeText = (view: StoreView): string =>
  view.kind === 'postgres' ? `PostgreSQL ${view.display} (schema ${view.schema})` : `the SQLite file ${view.display}`;

/**
 * The store a service with exactly `env` (plus the HOME its service manager gives it) resolves to, for `profile`:
 * its config file found as the service would find it, started in `home`.
 */
export function resolveServiceStore(env: NodeJS.ProcessEnv, profile: string, home: string): StoreView {
  const full: NodeJS.ProcessEnv = { HOME: home, ...env };
  const config = loadConfig({ env: full, cwd: home, profileFlag: profile });
  const selection = selectStore({ env: full, config, profile: config.profile });
  return storeView(selection, statePaths(config.profile, full, home, config.storage.databasePath).database);
}

/** What an installed service file says: its environment, profile and the files its secrets come from. */
export interface InstalledService {
  env: Record<string, string>;
  profile: string;
  /** systemd `LoadCredential=ID:PATH` (launchd: none; the path is in `env`). */
  credentials: Record<string, string>;
}

/** systemd's double-quoted word, unescaped (`\\`, `\"`, `%%`), or the bare text. */
function unquote(text: string): string {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('"') && trimmed.endsWith('"'))) return trimmed.replace(/%%/g, '%');
  return trimmed.slice(1, -1).replace(/\\(.)/g, '$1').replace(/%%/g, '%');
}

const xmlText = (text: string): string =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/** Reads a unit or plist written by `gateway install` (a hand-edited one as far as its lines allow); null when absent. */
export function readInstalledService(path: string, platform: ServicePlatform): InstalledService | null {
  if (!existsSync(path)) return null;
  const text = readFileSync(path, 'utf8');
  const env: Record<string, string> = {};
  const credentials: Record<string, string> = {};
  let argv: string[] = [];
  if (platform === 'linux') {
    for (const line of text.split('\n')) {
      const eq = line.indexOf('=');
      if (eq < 0) continue;
      const key = line.slice(0, eq).trim();
      const value = line.slice(eq + 1);
      if (key === 'Environment') {
        const assignment = unquote(value);
        const at = assignment.indexOf('=');
        if (at > 0) env[assignment.slice(0, at)] = assignment.slice(at + 1);
      } else if (key === 'LoadCredential') {
        const colon = value.indexOf(':');
        if (colon > 0)
          credentials[value.slice(0, colon).trim()] = value
            .slice(colon + 1)
            .trim()
            .replace(/%%/g, '%');
      } else if (key === 'ExecStart') {
        argv = [...value.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) => (m[1] !== undefined ? unquote(`"${m[1]}"`) : m[2]!));
      }
    }
  } else {
    const dict = /<key>EnvironmentVariables<\/key>\s*<dict>([\s\S]*?)<\/dict>/.exec(text)?.[1] ?? '';
    for (const m of dict.matchAll(/<key>([^<]*)<\/key>\s*<string>([^<]*)<\/string>/g)) env[xmlText(m[1]!)] = xmlText(m[2]!);
    const args = /<key>ProgramArguments<\/key>\s*<array>([\s\S]*?)<\/array>/.exec(text)?.[1] ?? '';
    argv = [...args.matchAll(/<string>([^<]*)<\/string>/g)].map((m) => xmlText(m[1]!));
  }
  const at = argv.indexOf('--profile');
  return { env, profile: at >= 0 && argv[at + 1] ? argv[at + 1]! : 'default', credentials };
}

/** The store of an installed service, as `gateway status` and `doctor` report it. */
export interface InstalledStore extends Partial<StoreView> {
  /** The file the service reads the store's password from (LoadCredential's source, or MISSIVE_STORE_PASSWORD_FILE). */
  password_file?: string;
  /** Whether it is the store this shell uses. */
  same_as_shell: boolean;
  /** Why the store could not be told (a config the service would not load). */
  error?: string;
}

/** The store the service file at `path` resolves to, compared with the shell's; null when no file is there. */
export function installedStore(path: string, platform: ServicePlatform, home: string, shell: StoreView): InstalledStore | null {
  const installed = readInstalledService(path, platform);
  if (!installed) return null;
  const fileEnv = installed.env[STORE_PASSWORD_FILE_ENV];
  const passwordFile = installed.credentials[STORE_PASSWORD_CREDENTIAL] ?? (fileEnv && !fileEnv.startsWith('%d/') ? fileEnv : undefined);
  try {
    const view = resolveServiceStore(installed.env, installed.profile, home);
    return { ...view, ...(passwordFile ? { password_file: passwordFile } : {}), same_as_shell: sameStore(view, shell) };
  } catch (error) {
    return { same_as_shell: false, error: error instanceof Error ? error.message : String(error) };
  }
}
