/**
 * undici, loaded on the first request: a command that never touches the network (`agent list`, `events list`)
 * does not pay for parsing it. Requests need only the pooled `Agent` and `request`, loaded from undici's own
 * modules: the package's index also loads fetch, web sockets, caches and mocks (nearly 1 MB of code, most of what a
 * whole `missive send` cost; docs/performance.md). `loadUndiciFetch` loads the whole package, for the SDK's fetch.
 */
import type * as Undici from 'undici';

export type UndiciCore = Pick<typeof Undici, 'Agent' | 'request'>;

let core: Promise<UndiciCore> | undefined;
let whole: Promise<typeof Undici> | undefined;

export const loadUndici = (): Promise<UndiciCore> => (core ??= loadCore());

export const loadUndiciFetch = (): Promise<typeof Undici> => (whole ??= import('undici'));

/** undici's own modules, or (should a release move them) the whole package: slower to load, never broken. */
async function loadCore(): Promise<UndiciCore> {
  try {
    return await loadCoreModules();
  } catch {
    const whole = await loadUndiciFetch();
    return { Agent: whole.Agent, request: whole.request };
  }
}

async function loadCoreModules(): Promise<UndiciCore> {
  const [agent, dispatcher, api, util, errors, global] = await Promise.all([
    import('undici/lib/dispatcher/agent.js'),
    import('undici/lib/dispatcher/dispatcher.js'),
    import('undici/lib/api/index.js'),
    import('undici/lib/core/util.js'),
    import('undici/lib/core/errors.js'),
    import('undici/lib/global.js'),
  ]);
  // What undici's index does: every dispatcher gets request, stream, pipeline, connect and upgrade.
  Object.assign(dispatcher.default.prototype, api.default);
  return { Agent: agent.default, request: requestVia(api.default.request, util.default, errors.default, global.default) };
}

/** undici's top-level `request(url, opts)` (its index's makeDispatcher), over the modules above. */
function requestVia(
  dispatch: (this: Undici.Dispatcher, opts: Undici.Dispatcher.RequestOptions) => Promise<Undici.Dispatcher.ResponseData>,
  util: { parseURL(url: string | URL): URL; parseOrigin(url: string | URL): URL },
  errors: { InvalidArgumentError: new (message: string) => Error },
  global: { getGlobalDispatcher(): Undici.Dispatcher },
): typeof Undici.request {
  const request = (url: string | URL, opts?: { dispatcher?: Undici.Dispatcher; path?: string; method?: string; body?: unknown } | null) => {
    if (!url || (typeof url !== 'string' && typeof url !== 'object')) throw new errors.InvalidArgumentError('invalid url');
    if (opts != null && typeof opts !== 'object') throw new errors.InvalidArgumentError('invalid opts');
    let target: URL;
    if (opts && opts.path != null) {
      if (typeof opts.path !== 'string') throw new errors.InvalidArgumentError('invalid opts.path');
      target = new URL(util.parseOrigin(url).origin + (opts.path.startsWith('/') ? opts.path : `/${opts.path}`));
    } else {
      opts ??= typeof url === 'object' ? (url as object) : {};
      target = util.parseURL(url);
    }
    if ('agent' in opts && (opts as { agent?: unknown }).agent) throw new errors.InvalidArgumentError('unsupported opts.agent. Did you mean opts.client?');
    const { dispatcher = global.getGlobalDispatcher() } = opts;
    return dispatch.call(dispatcher, {
      ...opts,
      origin: target.origin,
      path: target.search ? `${target.pathname}${target.search}` : target.pathname,
      method: (opts.method || (opts.body ? 'PUT' : 'GET')) as Undici.Dispatcher.HttpMethod,
    } as Undici.Dispatcher.RequestOptions);
  };
  return request as unknown as typeof Undici.request;
}
