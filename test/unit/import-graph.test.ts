/**
 * The import rules of .dependency-cruiser.cjs hold for the repository (no circle, no command file importing another,
 * core layers importing only downwards, the `Core` handle types only, the store's engines reached only through its
 * openers and never from each other, core free of Electron and the CLI, shared/ and the renderer isomorphic), and
 * they do report what they forbid: a fixture tree that breaks each rule once gets exactly those violations.
 */
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseOptions, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsConfigFile = `${root}tsconfig.json`;

/** Cruises electron/, shared/ and renderer/ under `baseDir` with the repository's rules. */
async function cruiseWithRules(baseDir: string): Promise<ICruiseResult> {
  const options: ICruiseOptions = { ...(await extractDepcruiseOptions(`${root}.dependency-cruiser.cjs`)), baseDir, tsConfig: { fileName: tsConfigFile } };
  const { output } = await cruise(['electron', 'shared', 'renderer'], options, {}, { tsConfig: extractTSConfig(tsConfigFile) });
  return output as ICruiseResult;
}

/** One line per violation: rule, importer → imported (the circle for no-circular), then what the rule says. */
function readable(result: ICruiseResult): string {
  const comments = new Map((result.summary.ruleSetUsed?.forbidden ?? []).map((rule) => [rule.name, rule.comment]));
  return result.summary.violations
    .map(
      (v) =>
        `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (circle: ${v.cycle.map((c) => c.name).join(' → ')})` : ''}\n    ${comments.get(v.rule.name) ?? ''}`,
    )
    .join('\n');
}

/** `rule: from → to`, an npm package named by its name wherever node_modules is. */
const brief = (violations: IViolation[]) =>
  violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to.replace(/^(.*\/)?node_modules\/([^/]+)\/.*$/, 'npm:$2')}`).sort();

describe('import graph', () => {
  it('has no circle and no import against the rules', async () => {
    const result = await cruiseWithRules(root);
    const sources = result.modules.map((m) => m.source);
    // The cruise saw the real tree: every part the rules talk about.
    for (const module of [
      'electron/core/context.ts',
      'electron/core/validation/url.ts',
      'electron/cli/program.ts',
      'electron/cli/commands/send.ts',
      'shared/errors.ts',
    ])
      expect(sources).toContain(module);
    expect(sources.some((s) => s.startsWith('renderer/src/'))).toBe(true);
    expect(result.summary.violations, `import rule violations:\n${readable(result)}`).toEqual([]);
  }, 60_000);

  it('reports a circle, an upward import and every other broken rule in a fixture tree', async () => {
    const result = await cruiseWithRules(`${root}fixtures/import-graph`);
    expect(brief(result.summary.violations)).toEqual(
      [
        'no-circular: electron/cli/commands/send.ts → electron/cli/program.ts',
        'no-circular: electron/cli/commands/stream.ts → electron/cli/commands/send.ts',
        'no-circular: electron/core/agents/registry.ts → electron/core/messaging/send.ts',
        'no-circular: electron/core/tasks/apply-update.ts → electron/core/tasks/persist.ts',
        'cli-command-imports-command: electron/cli/commands/stream.ts → electron/cli/commands/send.ts',
        'cli-imports-its-loader: electron/cli/commands/send.ts → electron/cli/program.ts',
        'cli-helper-imports-command: electron/cli/human.ts → electron/cli/commands/send.ts',
        'core-layer-agents: electron/core/agents/registry.ts → electron/core/messaging/send.ts',
        'core-handle-types-only: electron/core/handle.ts → electron/core/config/defaults.ts',
        'core-layer-auth: electron/core/auth/service.ts → electron/core/context.ts',
        'store-api-imports-engine: electron/core/store/storage.ts → electron/core/store/db.ts',
        'store-engine-outside-store: electron/core/history/rows.ts → electron/core/store/repos/history.ts',
        'store-engine-outside-store: electron/core/newthing/feature.ts → electron/core/store/db.ts',
        'store-postgres-imports-sqlite: electron/core/store/postgres/storage.ts → electron/core/store/repos/history.ts',
        'core-unlayered: electron/core/newthing/feature.ts → electron/core/store/db.ts',
        'core-imports-electron-or-cli: electron/core/store/db.ts → electron/cli/output.ts',
        'core-imports-electron-or-cli: electron/core/store/db.ts → npm:electron',
        'isomorphic-imports-electron: renderer/src/App.tsx → npm:electron',
        'isomorphic-imports-node: renderer/src/App.tsx → path',
        'isomorphic-imports-node: shared/errors.ts → fs',
        'shared-imports-outside-shared: shared/errors.ts → electron/core/store/db.ts',
        'renderer-imports-outside-renderer-and-shared: renderer/src/App.tsx → electron/core/context.ts',
      ].sort(),
    );
    // What the rules allow stays unreported: a type-only `Core` import from the handle, the composition root opening the
    // store through its opener (which loads the engine), the program loading command files.
    const reported = result.summary.violations.map((v) => `${v.from} → ${v.to}`);
    expect(reported).not.toContain('electron/core/agents/registry.ts → electron/core/handle.ts');
    expect(reported).not.toContain('electron/core/context.ts → electron/core/store/open.ts');
    expect(reported).not.toContain('electron/core/store/open.ts → electron/core/store/db.ts');
    expect(reported).not.toContain('electron/cli/program.ts → electron/cli/commands/stream.ts');
    expect(readable(result)).toMatch(
      /core-layer-agents: electron\/core\/agents\/registry\.ts → electron\/core\/messaging\/send\.ts\n {4}electron\/core\/agents is in layer 5/,
    );
  }, 60_000);
});
