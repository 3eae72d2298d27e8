/**
 * The files the desktop app loads, found from this module (dist/electron/main/ in a checkout, inside app.asar when
 * packaged): the renderer page, the preload, the tray icons. Missing ones are startup failures that name the fix.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MissiveError } from '../../shared/errors.js';
import { installation } from '../core/install-root.js';

export const RENDERER_INDEX = fileURLToPath(new URL('../../renderer/index.html', import.meta.url));
/** Every page of our renderer is a file URL under this prefix (with a trailing slash). */
export const RENDERER_URL_PREFIX = `${pathToFileURL(dirname(RENDERER_INDEX)).href}/`;
export const PRELOAD = fileURLToPath(new URL('../preload/index.cjs', import.meta.url));

/** The installation root: package.json's directory (app.asar when packaged). */
export const appRoot = (): string => installation()?.root ?? fileURLToPath(new URL('../../../', import.meta.url));

/** The tray icon for this platform: a template image on macOS (black with alpha; the menu bar tints it). */
export const trayIconPath = (platform = process.platform): string => join(appRoot(), 'build', 'icons', platform === 'darwin' ? 'trayTemplate.png' : 'tray.png');

/** The window's page and preload must be there before a window is opened for them. */
export function requireAppFiles(): void {
  for (const [what, path] of [
    ['the GUI page', RENDERER_INDEX],
    ['the preload script', PRELOAD],
  ] as const) {
    if (!existsSync(path)) {
      throw new MissiveError('io', 'app_files_missing', `${what} is not built: ${path} is missing`, {
        exitCode: 69,
        help: `Run \`npm run build\` in ${appRoot()} (or reinstall the packaged app).`,
      });
    }
  }
}
