/**
 * The output shapes of the IPC contract (shared/ipc/contract.ts): what the services the registry calls
 * (electron/core/**) return, field by field, so the renderer reads them typed instead of casting. Objects are loose
 * (a field the service adds later passes), but every field here is checked on every call: the registry refuses an
 * output outside its schema (`internal::invalid_output`). test/unit/ipc-contract.test.ts checks at compile time that
 * each service's declared return type fits its channel's schema. Isomorphic: no node:*, no DOM, no electron.
 */
export * from './common.js';
export * from './agents.js';
export * from './messages.js';
export * from './collectives.js';
export * from './journal.js';
export * from './settings.js';
