/**
 * undici, loaded on the first request: a command that never touches the network (`agent list`, `events list`)
 * does not pay for parsing it (it is the largest module missive loads).
 */
let loading: Promise<typeof import('undici')> | undefined;

export const loadUndici = (): Promise<typeof import('undici')> => (loading ??= import('undici'));
