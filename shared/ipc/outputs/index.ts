/**
 * The output shapes of the IPC contract (shared/ipc/contract.ts): what the services the registry calls
 * (electron/core/**) return, field by field, so the renderer reads them typed instead of casting. Objects are loose
 * (a field the service adds later passes), but every field here is checked on every call: the registry refuses an
 * output outside its schema (`internal::invalid_output`), and its handler table is typed by them
 * (electron/core/ipc/channel-handlers.ts), so a handler answering another shape does not compile. Isomorphic: no
 * node:*, no DOM, no electron.
 */
export * from './common.js';
export * from './agents.js';
export * from './messages.js';
export * from './collectives.js';
export * from './journal.js';
export * from './settings.js';
