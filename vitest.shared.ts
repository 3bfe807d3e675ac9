// What every workspace package's Vitest configuration shares (each `vitest.config.ts` imports it).

/**
 * The built workspace packages, imported by Node itself, as an app imports them, and not through
 * Vite's transform: Vite treats a linked workspace package as source, so every package's run
 * transformed the `dist/` of each workspace package its tests import (the emulator's, the
 * runtime's...) again, and ran it in Vite's module runner. Measured on the batch launcher's
 * rate-limit test alone (`npx vitest run test/rate-limit.test.ts`, two runs each): transform
 * 1.02 s against 0.05 s, 4.48 and 4.11 CPU-s against 3.14 and 3.03 (docs/suite-time.md). The
 * generated package's JavaScript (`packages/generated/src/*.js`, written by the generator) is
 * loaded the same way. A package's own TypeScript sources and tests still go through Vite.
 */
export const builtWorkspaceModules: RegExp[] = [
  /\/(packages|apps)\/[^/]+\/dist\/.*\.m?js$/,
  /\/packages\/generated\/src\/.*\.js$/,
];
