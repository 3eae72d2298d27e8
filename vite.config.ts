import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/** The renderer: built into dist/renderer, loaded by Electron from disk (relative asset paths). */
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: { outDir: '../dist/renderer', emptyOutDir: true, sourcemap: true },
});
