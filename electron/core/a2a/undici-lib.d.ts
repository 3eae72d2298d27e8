/** undici's own modules that a2a/undici.ts loads instead of the package's index (which ships no types for them). */
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const agent: typeof Agent;
  export default agent;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import type { Dispatcher } from 'undici';
  const dispatcher: typeof Dispatcher;
  export default dispatcher;
}
declare module 'undici/lib/api/index.js' {
  import type { Dispatcher } from 'undici';
  const api: { request(this: Dispatcher, opts: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> } & Record<string, unknown>;
  export default api;
}
declare module 'undici/lib/core/util.js' {
  const util: { parseURL(url: string | URL): URL; parseOrigin(url: string | URL): URL };
  export default util;
}
declare module 'undici/lib/core/errors.js' {
  const errors: { InvalidArgumentError: new (message: string) => Error };
  export default errors;
}
declare module 'undici/lib/global.js' {
  import type { Dispatcher } from 'undici';
  const global: { getGlobalDispatcher(): Dispatcher };
  export default global;
}
