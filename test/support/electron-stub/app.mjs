/**
 * Stands for the Electron binary: `node --import register.mjs app.mjs <app directory> [switches]` reads the app
 * directory's package.json and runs its `main`, as `electron <app directory>` does. process.argv keeps the app
 * directory and the switches where main looks for them.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const appDir = resolve(process.argv[2] ?? '.');
const { main = 'index.js' } = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8'));
await import(pathToFileURL(join(appDir, main)).href);
