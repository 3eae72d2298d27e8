/** Waiting for the operator to stop a long-running command (webhook run, gateway run): SIGINT, SIGTERM or a time limit. */

/** Resolves on SIGINT or SIGTERM (or after `ms`), then removes its listeners. */
export function untilSignal(ms?: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = ms === undefined ? undefined : setTimeout(done, ms);
    function done() {
      if (timer) clearTimeout(timer);
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    }
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}
