import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The renderer's JSX runtime: React's, showing control and bidi characters in text as visible escapes
 * (renderer/src/visible-jsx; renderer/tsconfig.json names it too).
 */
const JSX_IMPORT_SOURCE = '@missive/visible-jsx';

/** The renderer: built into dist/renderer, loaded by Electron from disk (relative asset paths). */
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react({ jsxImportSource: JSX_IMPORT_SOURCE })],
  resolve: {
    alias: [
      {
        find: /^@missive\/visible-jsx\/(jsx-runtime|jsx-dev-runtime)$/,
        replacement: `${fileURLToPath(new URL('./renderer/src/visible-jsx/', import.meta.url))}$1.ts`,
      },
    ],
  },
  build: { outDir: '../dist/renderer', emptyOutDir: true, sourcemap: true },
});
