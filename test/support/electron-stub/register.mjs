/** `node --import ./register.mjs …`: every `import … from 'electron'` after this gets the stand-in (electron.mjs). */
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
