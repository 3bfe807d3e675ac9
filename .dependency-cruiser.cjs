// The repository's dependency rules, written once and checked by `pnpm check:architecture`
// (dependency-cruiser, in the root `test` chain). docs/architecture.md draws the same tables.
//
// - No import circles, anywhere.
// - Packages import only downward: a package's sources (src/) import only the workspace packages
//   listed for it in PACKAGES, which are all below it. Tests, scripts and apps may import any
//   package, but no package imports them.
// - Inside the emulator, a room (a folder of packages/emulator/src) imports only the rooms listed
//   for it in EMULATOR_ROOMS. The public entry points (index.ts, bin.ts) may import any room.

/** Each workspace package (folder under packages/) and the workspace packages its sources may import. */
const PACKAGES = {
  protocol: [],
  "definition-reader": [],
  "test-servers": [],
  runtime: ["protocol"],
  mcp: ["protocol", "definition-reader"],
  generated: ["runtime"],
  "store-redis": ["runtime"],
  "store-postgres": ["runtime"],
  codegen: ["protocol", "definition-reader"],
  emulator: ["protocol", "definition-reader", "mcp"],
  testing: ["runtime", "emulator"],
  cli: ["protocol", "definition-reader", "runtime", "codegen", "emulator", "mcp"],
  "fault-suite": ["runtime", "emulator", "store-postgres", "store-redis", "test-servers"],
};

/** Each room of packages/emulator/src and the rooms it may import (its own always). */
const EMULATOR_ROOMS = {
  model: [],
  access: ["model"],
  http: ["model", "access"],
  definition: ["model"],
  faults: ["model", "http"],
  engine: ["model", "definition"],
  journal: ["model", "access", "faults", "engine"],
  agent: ["model", "access", "http", "definition", "engine", "journal"],
  state: ["model", "access", "http", "faults", "engine", "journal", "agent"],
  api: ["model", "access", "http", "definition", "engine", "state"],
  admin: ["model", "access", "http", "faults", "engine", "state"],
  "web-app": ["model", "access", "http", "faults", "engine"],
  edge: ["model", "access", "http", "faults", "engine", "agent", "state", "api"],
  server: [
    "model",
    "access",
    "http",
    "definition",
    "faults",
    "engine",
    "journal",
    "agent",
    "state",
    "api",
    "admin",
    "web-app",
    "edge",
  ],
};

/**
 * Modules codegen emits into every generated package as they are: they import what a generated
 * package depends on (@wfr/runtime, as packages/generated does), not what codegen does.
 */
const EMITTED = "^packages/codegen/src/shared-modules/";

const alternatives = (names) => names.map((n) => n.replace(/[.-]/g, "\\$&")).join("|");

const packageRules = Object.entries(PACKAGES).map(([name, below]) => ({
  name: `package-${name}-imports-downward`,
  comment: `packages/${name}/src imports only the workspace packages below it: ${below.join(", ") || "none"}`,
  severity: "error",
  from: { path: `^packages/${alternatives([name])}/src/`, pathNot: EMITTED },
  to: {
    // A workspace package by name (resolved through node_modules, or not at all when it is not a
    // dependency), or by a relative path into another folder of the repository.
    path: [
      "(^|/node_modules/)@wfr/",
      "^(packages|apps)/[^/]+/(?!node_modules/)",
      "^bench/",
      "^scripts/",
    ],
    pathNot: [
      `(^|/node_modules/)@wfr/(${alternatives(below)})(/|$)`,
      `^packages/${alternatives([name])}/(?!node_modules/)`,
    ],
  },
}));

const roomRules = Object.entries(EMULATOR_ROOMS).map(([room, below]) => {
  const others = Object.keys(EMULATOR_ROOMS).filter((r) => r !== room && !below.includes(r));
  return {
    name: `emulator-room-${room}`,
    comment: `packages/emulator/src/${room}/ imports only the rooms ${below.join(", ") || "(none)"}`,
    severity: "error",
    from: { path: `^packages/emulator/src/${alternatives([room])}/` },
    to: {
      path: [
        `^packages/emulator/src/(${alternatives(others)})/`,
        // The entry points sit on top of every room.
        "^packages/emulator/src/[^/]+\\.ts$",
      ],
    },
  };
});

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "an import circle: the modules on it cannot be read, tested or moved apart",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "emulator-file-in-a-room",
      comment: "every module of packages/emulator/src, but for its entry points, lives in a room",
      severity: "error",
      from: {
        path: "^packages/emulator/src/[^/]+\\.ts$",
        pathNot: "^packages/emulator/src/(index|bin)\\.ts$",
      },
      to: {},
    },
    {
      name: "emulator-room-is-listed",
      comment: "a room of packages/emulator/src that .dependency-cruiser.cjs does not list",
      severity: "error",
      from: {
        path: "^packages/emulator/src/[^/]+/",
        pathNot: `^packages/emulator/src/(${alternatives(Object.keys(EMULATOR_ROOMS))})/`,
      },
      to: {},
    },
    ...packageRules,
    {
      name: "emitted-modules-import-the-runtime-only",
      comment: "codegen's shared modules run inside a generated package: @wfr/runtime only",
      severity: "error",
      from: { path: EMITTED },
      to: {
        path: ["(^|/node_modules/)@wfr/", "^(packages|apps)/[^/]+/(?!node_modules/)"],
        pathNot: ["(^|/node_modules/)@wfr/runtime(/|$)", `${EMITTED}`],
      },
    },
    ...roomRules,
  ],
  options: {
    // Type-only imports count: a type import is an edge a reader follows too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    // Workspace packages are judged by the name they are imported with: symlinks are kept, so
    // `@wfr/protocol` resolves to `<importer>/node_modules/@wfr/protocol/...`, never read itself.
    preserveSymlinks: true,
    doNotFollow: { path: ["node_modules"] },
    exclude: {
      path: ["(^|/)node_modules/(?!@wfr/)", "^(packages|apps)/[^/]+/dist/", "^bench/dist/"],
    },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "types", "default"],
      mainFields: ["module", "main", "types"],
    },
    cache: false,
  },
};
