import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Memory tests (long streams, big fan-outs) measure retained heap after a full GC.
    execArgv: ['--expose-gc'],
    // One throw-away PostgreSQL cluster for the run (team mode's store); MISSIVE_TEST_PG_URL set: that server instead.
    globalSetup: ['test/support/postgres.ts'],
  },
});
