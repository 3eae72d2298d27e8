/**
 * MCP resources: agent cards (`missive://agent/<alias>/card`), context threads (`missive://context/<id>/thread`),
 * tasks (`missive://task/<id>`) and task artifacts (`missive://artifact/<task>/<artifact>`), all read from the store
 * (resource-read.ts), listed in pages (resource-list.ts), and a task and its artifacts subscribable while the task
 * runs (resource-watch.ts). A failure that is not an MCP error already becomes one carrying missive's report.
 */
import { ErrorCode, McpError, type ReadResourceResult, type Resource, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { mcpError } from './mcp-error.js';
import { toMissiveError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { listResources } from './resource-list.js';
import { readResource } from './resource-read.js';
import { RESOURCE_TEMPLATES } from './resource-uris.js';
import { createResourceWatch } from './resource-watch.js';

export interface McpResources {
  list(cursor?: string): Promise<{ resources: Resource[]; nextCursor?: string }>;
  templates(): ResourceTemplate[];
  read(uri: string): Promise<ReadResourceResult>;
  subscribe(uri: string): Promise<void>;
  unsubscribe(uri: string): void;
  close(): void;
}

/** Runs `fn`; anything it throws that is not an McpError becomes one (InternalError) with missive's message and code. */
async function asMcp<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof McpError) throw error;
    const report = toMissiveError(error).toReport();
    throw mcpError(ErrorCode.InternalError, `${report.message} [${report.code}]`, { error: report });
  }
}

export function createResources(core: Core, events: { notify(uri: string): void }): McpResources {
  const watch = createResourceWatch(core, (uri) => events.notify(uri));
  return {
    list: (cursor) => asMcp(() => listResources(core, cursor)),
    templates: () => RESOURCE_TEMPLATES,
    read: (uri) => asMcp(() => readResource(core, uri)),
    subscribe: (uri) => asMcp(() => watch.subscribe(uri)),
    unsubscribe: (uri) => watch.unsubscribe(uri),
    close: () => watch.close(),
  };
}
