/**
 * A streamed artifact in a context's thread and in `task get`, when a tick of the stream stores the chunks it brings
 * as one row (schema v15): the thread shows a short artifact sent token by token whole (it read at most 200 stored
 * rows, one per token before, and cut a 300-token answer at its 200th token), still says when a long one is cut, and
 * the artifact counts every chunk the agent sent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCore } from '../../electron/core/context.js';
import type { Core } from '../../electron/core/handle.js';
import { createMemorySecretStore } from '../../electron/core/auth/secret-store.js';
import { addAgent } from '../../electron/core/agents/registry.js';
import { contextThread, type ThreadArtifact } from '../../electron/core/contexts/thread.js';
import { applyUpdateSteps, type UpdateSource } from '../../electron/core/tasks/apply-update.js';
import type { StreamRecord } from '../../electron/core/a2a/stream-response.js';

const CONTEXT = 'ctx-chunks';

let home: string;
let core: Core;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'missive-thread-chunks-'));
  core = createCore({ env: { MISSIVE_HOME: home, HOME: home, PATH: process.env.PATH }, cwd: home, secrets: createMemorySecretStore() });
  await addAgent(core, { alias: 'peer', baseUrl: 'http://127.0.0.1:1' });
});

afterEach(() => {
  core.close();
  rmSync(home, { recursive: true, force: true });
});

const source = (): UpdateSource => ({ eventPrefix: 'a2a.stream', alias: 'peer', protocolVersion: '1.0', metadata: {}, ensured: new Set() });
const task = (taskId: string): StreamRecord => ({
  variant: 'task',
  payload: { id: taskId, contextId: CONTEXT, status: { state: 'TASK_STATE_WORKING' } },
});
const chunk = (taskId: string, n: number): StreamRecord => ({
  variant: 'artifactUpdate',
  payload: { taskId, contextId: CONTEXT, append: n > 0, artifact: { artifactId: 'answer', name: 'answer.txt', parts: [{ text: 'x' }] } },
});

/** A stream's updates through the store's sink: `together`, all in one tick (as one network read brings them); else a tick each. */
async function stream(records: StreamRecord[], together: boolean): Promise<void> {
  const storage = await core.storage();
  const sink = storage.updates();
  const from = source();
  const apply = (record: StreamRecord) => sink.apply((tick) => applyUpdateSteps(from, record, tick));
  if (together) await Promise.all(records.map(apply));
  else
    for (const record of records) {
      await apply(record);
      await sink.flush();
    }
  await sink.flush();
}

const artifactOf = async (): Promise<ThreadArtifact> =>
  (await contextThread(core, CONTEXT)).items.find((item): item is ThreadArtifact => item.kind === 'artifact')!;

describe("a streamed artifact's chunks", () => {
  it('shows a short artifact sent token by token whole, and counts every chunk the agent sent', async () => {
    await stream([task('t-short'), ...Array.from({ length: 300 }, (_, n) => chunk('t-short', n))], true);
    const artifact = await artifactOf();
    expect(artifact).toMatchObject({ version: 300, text: 'x'.repeat(300), text_truncated: false });
    const storage = await core.storage();
    expect(await storage.conversation.listArtifactsOfTask('t-short')).toMatchObject([{ artifact_id: 'answer', version: 300, chunks: 300 }]);
  });

  it('still says the text was cut when the artifact is stored in more rows than the thread reads', async () => {
    await stream([task('t-long'), ...Array.from({ length: 201 }, (_, n) => chunk('t-long', n))], false);
    const artifact = await artifactOf();
    expect(artifact).toMatchObject({ version: 201, text: 'x'.repeat(200), text_truncated: true });
    const storage = await core.storage();
    expect(await storage.conversation.listArtifactsOfTask('t-long')).toMatchObject([{ chunks: 201 }]);
  });
});
