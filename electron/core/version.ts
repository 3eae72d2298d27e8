/** The product version, from package.json (see install-root.ts). */
import { installation } from './install-root.js';

export const VERSION = installation()?.version ?? '0.0.0';
