/** The routing policies a group can name and `route explain` applies (core/collectives/route.ts); the IPC contract takes the same list. */
export const ROUTE_POLICIES = ['first', 'round-robin', 'capability-match'] as const;
export type RoutePolicy = (typeof ROUTE_POLICIES)[number];
