/**
 * `missive ui --web [--port N] [--host ADDR [--allow-remote]] [--open]`: the desktop app's renderer and IPC contract
 * served to a browser (electron/core/web-console). Prints the URL (the address bound, this launch's token in the
 * fragment), optionally opens the browser on a redirect file only this user can read (a command line is readable by
 * every local user), and serves until SIGINT or SIGTERM (or --timeout), then closes cleanly.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { installation } from '../core/install-root.js';
import { startWebConsole } from '../core/web-console/server.js';
import { writeRedirectFile, type RedirectFile } from '../core/web-console/redirect-file.js';
import { rendererMissing } from '../core/web-console/static-files.js';
import { usageError } from '../../shared/errors.js';
import type { CommandContext } from './command-context.js';
import { untilSignal } from './signals.js';

export interface WebConsoleFlags {
  port?: string | number;
  host?: string;
  allowRemote?: boolean;
  open?: boolean;
}

/** The built renderer: MISSIVE_RENDERER_DIR (a build of one's own), else the installation's dist/renderer. */
function rendererDir(env: NodeJS.ProcessEnv): string {
  if (env.MISSIVE_RENDERER_DIR) return env.MISSIVE_RENDERER_DIR;
  const root = installation()?.root;
  if (!root) throw rendererMissing('dist/renderer (no missive installation was found above the CLI)');
  return join(root, 'dist/renderer');
}

function parsePort(value: string | number | undefined): number {
  if (value === undefined) return 0;
  const text = String(value).trim();
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535)) throw usageError('invalid_port', `--port must be an integer from 0 to 65535, not "${text}"`);
  return port;
}

/**
 * The browser command: $BROWSER (its first entry, as Python's webbrowser reads it: a list split on the path
 * delimiter; `%s` stands for the URL, else the URL is appended), else the platform's opener.
 */
export function browserCommand(url: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): { command: string; args: string[] } {
  const configured = env.BROWSER?.split(platform === 'win32' ? ';' : ':')
    .map((entry) => entry.trim())
    .find(Boolean);
  if (configured) {
    const [command, ...rest] = configured.split(/\s+/);
    const args = rest.some((a) => a.includes('%s')) ? rest.map((a) => a.replaceAll('%s', url)) : [...rest, url];
    return { command: command!, args };
  }
  if (platform === 'darwin') return { command: 'open', args: [url] };
  // What `start` does, without cmd.exe's quoting rules.
  if (platform === 'win32') return { command: 'rundll32', args: ['url.dll,FileProtocolHandler', url] };
  return { command: 'xdg-open', args: [url] };
}

/**
 * Starts the browser on a redirect file to `url` and lets it go; a failure is only a warning (the URL is printed
 * anyway), said once: a command that cannot start, or one that exits with a failure (an opener with no browser to
 * hand the file to). The file, while there is one, is for the caller to remove.
 */
async function openBrowser(url: string, env: NodeJS.ProcessEnv, warnEach: (message: string) => void): Promise<RedirectFile | undefined> {
  let warned = false;
  const warn = (message: string) => {
    if (warned) return;
    warned = true;
    warnEach(message);
  };
  let file: RedirectFile;
  try {
    file = await writeRedirectFile(url);
  } catch (error) {
    warn(`could not write the file to open in a browser (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): open the URL above yourself`);
    return undefined;
  }
  const { command, args } = browserCommand(file.url, env);
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore', env: { ...env } });
    child.once('error', (error: NodeJS.ErrnoException) =>
      warn(`could not open a browser with ${command} (${error.code ?? error.message}): open the URL above yourself`),
    );
    child.once('exit', (code) => {
      if (code) warn(`could not open a browser with ${command} (it exited with ${code}): open the URL above yourself`);
    });
    child.unref();
  } catch (error) {
    warn(`could not open a browser with ${command} (${(error as Error).message}): open the URL above yourself`);
  }
  return file;
}

export async function runWebConsole(ctx: CommandContext, o: WebConsoleFlags): Promise<number | void> {
  const { core, out, deps, flags } = ctx;
  const webConsole = await startWebConsole({
    core,
    cwd: deps.cwd,
    rendererDir: rendererDir(deps.env),
    host: o.host,
    port: parsePort(o.port),
    allowNonLoopback: o.allowRemote === true,
    tailEventsMs: 500,
    onWarning: (message) => out.warning(message),
  });
  let opened: RedirectFile | undefined;
  try {
    out.result('web_console', { url: webConsole.url, origin: webConsole.origin, host: webConsole.host, port: webConsole.port }, (d) =>
      [
        `missive web console: ${d.url}`,
        '  open it in a browser on this machine (the token after # is for this launch only; keep it to yourself); Ctrl-C to stop',
      ].join('\n'),
    );
    if (o.open) opened = await openBrowser(webConsole.url, deps.env, (message) => out.warning(message));
    await untilSignal(flags.timeout ? core.timeoutMs : undefined);
  } finally {
    await webConsole.close();
    await opened?.remove();
  }
  out.event('web_console_stopped', { origin: webConsole.origin }, (d) => `web console at ${d.origin} stopped`);
  return 0;
}
