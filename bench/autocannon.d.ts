/** The part of autocannon's API bench/load-overhead.ts uses (the package ships no types). */
declare module 'autocannon' {
  interface Result {
    requests: { sent: number };
    non2xx: number;
    errors: number;
    /** Whole milliseconds, back-filled for coordinated omission when a rate is set. */
    latency: { p50: number; p99: number };
  }
  interface Instance {
    /** Each response: its status, bytes and time from the request's write, in fractional milliseconds. */
    on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  }
  function autocannon(opts: Record<string, unknown>, done: (error: Error | null, result: Result) => void): Instance;
  export = autocannon;
}
