/**
 * The import rules of missive, checked by dependency-cruiser (`npm run lint:imports`, and test/unit/import-graph.test.ts):
 * no import circles anywhere; CLI command files never import each other or the program that loads them; the core's
 * layers (docs/architecture.md, "Layers") only import downwards; the core never imports Electron or the CLI; shared/
 * stays isomorphic; the renderer imports only shared/ and itself.
 */

/**
 * The layers of electron/core, lowest first. An entry is a folder (`agents`) or a top-level file (`context.ts`). A
 * module may import its own folder and the entries of lower layers; never a higher layer, nor another entry of its
 * own layer. The `Core` handle (handle.ts, types only) sits just above the store: every service takes it from there,
 * and context.ts, which builds one, is imported only by the entry points (the CLI, the Electron main process, the demo).
 */
const CORE_LAYERS = [
  ['config', 'security', 'install-root.ts', 'pid.ts'],
  ['store', 'a2a', 'validation', 'version.ts'],
  ['handle.ts'],
  ['auth', 'service'],
  ['agents'],
  ['context.ts'],
  ['contexts', 'artifacts'],
  ['tasks'],
  ['messaging'],
  ['collectives', 'push', 'webhook', 'events', 'history', 'conformance'],
  ['jobs'],
  ['gateway'],
  ['doctor', 'demo', 'replay', 'diff', 'logs', 'load'],
  ['mock'],
  ['ipc'],
  ['adapters', 'web-console'],
  ['mcp'],
];

const CORE_HANDLE = 'handle.ts';

const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The path regex of a layer entry: everything in a folder, or exactly one file. */
const entryPath = (entry) => (entry.endsWith('.ts') ? `^electron/core/${escapeRegex(entry)}$` : `^electron/core/${escapeRegex(entry)}/`);
const describeLayer = (index) => `layer ${index + 1} of ${CORE_LAYERS.length} (${CORE_LAYERS[index].join(', ')})`;

/** One rule per core entry: the entries it must not import (higher layers and its own layer's other entries). */
const coreLayerRules = CORE_LAYERS.flatMap((layer, index) =>
  layer.map((entry) => {
    const above = CORE_LAYERS.slice(index + 1).flat();
    const forbidden = [...layer.filter((peer) => peer !== entry), ...above];
    return {
      name: `core-layer-${entry.replace(/\.ts$/, '').replace(/[^a-z0-9]+/g, '-')}`,
      severity: 'error',
      comment: `electron/core/${entry} is in ${describeLayer(index)}: it imports only lower layers, never ${forbidden.join(', ')}.`,
      from: { path: entryPath(entry) },
      to: { path: forbidden.map(entryPath) },
    };
  }),
).filter((rule) => rule.to.path.length > 0);

/** The `Core` handle is types only: it imports nothing at run time (it would run every service's imports back up). */
const coreHandleRule = {
  name: 'core-handle-types-only',
  severity: 'error',
  comment: `${CORE_HANDLE} declares the Core type only: its imports are \`import type\`.`,
  from: { path: entryPath(CORE_HANDLE) },
  to: { dependencyTypesNot: ['type-only'] },
};

/**
 * The store's seam (docs/architecture.md, "The storage seam"): the services see the engine-neutral interface only
 * (storage.ts, steps.ts, rows/, selection.ts…); each engine is reached through the openers, which load it when selected.
 */
const SQLITE_ENGINE = ['^electron/core/store/(db|store)\\.ts$', '^electron/core/store/(migrations|repos|sqlite)/', '(^|/)node_modules/better-sqlite3/'];
const POSTGRES_ENGINE = ['^electron/core/store/postgres/', '(^|/)node_modules/(pg|pg-[a-z-]+)/'];
const STORE_OPENERS = '^electron/core/store/(open|inspect|completion-names)\\.ts$';
const storeRules = [
  {
    name: 'store-engine-outside-store',
    severity: 'error',
    comment: 'Nothing outside electron/core/store names an engine (Db, better-sqlite3, pg, a repository module): services use core.storage().',
    from: { path: '^electron/', pathNot: '^electron/core/store/' },
    to: { path: [...SQLITE_ENGINE, ...POSTGRES_ENGINE] },
  },
  {
    name: 'store-api-imports-engine',
    severity: 'error',
    comment: "The store's neutral modules (the interface, steps, rows, statements) import neither engine: only the openers load one.",
    from: { path: '^electron/core/store/', pathNot: [...SQLITE_ENGINE, ...POSTGRES_ENGINE, STORE_OPENERS] },
    to: { path: [...SQLITE_ENGINE, ...POSTGRES_ENGINE] },
  },
  {
    name: 'store-sqlite-imports-postgres',
    severity: 'error',
    comment: 'Neither engine imports the other: SQLite never imports PostgreSQL modules or pg.',
    from: { path: SQLITE_ENGINE.slice(0, 2) },
    to: { path: POSTGRES_ENGINE },
  },
  {
    name: 'store-postgres-imports-sqlite',
    severity: 'error',
    comment: 'Neither engine imports the other: PostgreSQL never imports SQLite modules or better-sqlite3.',
    from: { path: POSTGRES_ENGINE[0] },
    to: { path: SQLITE_ENGINE },
  },
];

const CLI_LOADER = '^electron/cli/(command-modules|program|index)\\.ts$';
const CLI_COMMANDS = '^electron/cli/commands/';
/** The Electron package, resolved in node_modules or (not installed) by its bare name. */
const ELECTRON_PACKAGE = '^electron$|(^|/)node_modules/electron/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circles: a module never reaches itself through its imports (type-only imports included).',
      from: { path: '^(electron|shared|renderer)/' },
      to: { circular: true },
    },
    {
      name: 'cli-command-imports-command',
      severity: 'error',
      comment: 'A CLI command file never imports another one: what two commands share lives in a helper module in electron/cli/.',
      from: { path: CLI_COMMANDS },
      to: { path: CLI_COMMANDS },
    },
    {
      name: 'cli-imports-its-loader',
      severity: 'error',
      comment:
        'Only index.ts imports program.ts, and nothing imports index.ts (the chain is index.ts → program.ts → command-modules.ts → commands/* → helpers): command files and helpers take types from command-context.ts and parsers from options.ts.',
      from: { path: '^electron/cli/', pathNot: '^electron/cli/index\\.ts$' },
      to: { path: '^electron/cli/(program|index)\\.ts$' },
    },
    {
      name: 'cli-helper-imports-command',
      severity: 'error',
      comment: 'CLI helper modules sit below the command files: they never import a command file or the loader.',
      from: { path: '^electron/cli/', pathNot: [CLI_COMMANDS, CLI_LOADER] },
      to: { path: [CLI_COMMANDS, CLI_LOADER] },
    },
    ...coreLayerRules,
    coreHandleRule,
    ...storeRules,
    {
      name: 'core-unlayered',
      severity: 'error',
      comment: 'Every module of electron/core belongs to a layer: add a new folder to CORE_LAYERS here and to "Layers" in docs/architecture.md.',
      from: { path: '^electron/core/', pathNot: CORE_LAYERS.flat().map(entryPath) },
      to: {},
    },
    {
      name: 'core-imports-electron-or-cli',
      severity: 'error',
      comment: 'The core is plain Node: it never imports Electron, the Electron glue (electron/main, electron/preload) or the CLI.',
      from: { path: '^electron/core/' },
      to: { path: ['^electron/(cli|main|preload)/', ELECTRON_PACKAGE] },
    },
    {
      name: 'isomorphic-imports-node',
      severity: 'error',
      comment: 'shared/ and the renderer run in the sandboxed renderer too: no node:* built-ins.',
      from: { path: ['^shared/', '^renderer/'] },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'isomorphic-imports-electron',
      severity: 'error',
      comment: 'shared/ and the renderer never import the Electron package: the renderer reaches the core through window.missive only.',
      from: { path: ['^shared/', '^renderer/'] },
      to: { path: ELECTRON_PACKAGE },
    },
    {
      name: 'shared-imports-outside-shared',
      severity: 'error',
      comment: 'shared/ imports only itself and npm packages, never electron/ or renderer/.',
      from: { path: '^shared/' },
      to: { pathNot: ['^shared/', '(^|/)node_modules/'], dependencyTypesNot: ['core'], couldNotResolve: false },
    },
    {
      name: 'renderer-imports-outside-renderer-and-shared',
      severity: 'error',
      comment: 'The renderer talks to the core through window.missive only: it imports renderer/, shared/ and npm packages, nothing else.',
      from: { path: '^renderer/' },
      to: { pathNot: ['^renderer/', '^shared/', '(^|/)node_modules/'], dependencyTypesNot: ['core'], couldNotResolve: false },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types'],
    },
  },
};
