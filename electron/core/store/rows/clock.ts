/** The store's timestamps: ISO 8601 in UTC, as both engines keep them in their text columns. */
export const nowIso = (): string => new Date().toISOString();
