import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  detectPackageManager,
  installCommand,
  usesPlugNPlay,
  wfrCommand,
  yarnFlavour,
} from "../src/package-manager.js";

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "wfr-pm-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

describe("the command a person runs", () => {
  it("npm without scripts: npx --no wfr ... (never a bare npx, which installs what it does not find)", () => {
    const dir = project({ "package.json": "{}", "package-lock.json": "{}" });
    expect(detectPackageManager(dir)).toBe("npm");
    expect(wfrCommand(dir, "generate")).toBe("npx --no wfr generate");
    expect(installCommand(dir, "@wfr/emulator", true)).toBe("npm i -D @wfr/emulator");
  });

  it("the package script that runs exactly that command, with the project's package manager", () => {
    const scripts = JSON.stringify({ scripts: { generate: "wfr generate" } });
    expect(wfrCommand(project({ "package.json": scripts }), "generate")).toBe("npm run generate");
    expect(wfrCommand(project({ "package.json": scripts, "pnpm-lock.yaml": "" }), "generate")).toBe(
      "pnpm generate",
    );
    expect(wfrCommand(project({ "package.json": scripts, "yarn.lock": "" }), "generate")).toBe(
      "yarn generate",
    );
  });

  it("pnpm without the script: pnpm exec wfr; packageManager counts without a lockfile", () => {
    const dir = project({ "package.json": JSON.stringify({ packageManager: "pnpm@10.34.8" }) });
    expect(detectPackageManager(dir)).toBe("pnpm");
    expect(wfrCommand(dir, "schemas pull")).toBe("pnpm exec wfr schemas pull");
    expect(installCommand(dir, "@wfr/mcp", true)).toBe("pnpm add -D @wfr/mcp");
  });
});

describe("Yarn classic or Berry", () => {
  it("the packageManager field decides: yarn@1 is classic, yarn@2 and later Berry", () => {
    const declared = (version: string) =>
      project({ "package.json": JSON.stringify({ packageManager: `yarn@${version}` }) });
    expect(yarnFlavour(declared("1.22.22"))).toBe("classic");
    expect(yarnFlavour(declared("4.18.0+sha512.abc"))).toBe("berry");
    expect(yarnFlavour(declared("2.4.3"))).toBe("berry");
  });

  it("without the field: Berry's .yarnrc.yml or its lockfile's __metadata, else classic", () => {
    expect(yarnFlavour(project({ "package.json": "{}", ".yarnrc.yml": "nodeLinker: pnp\n" }))).toBe(
      "berry",
    );
    const berryLock = '__metadata:\n  version: 8\n  cacheKey: 10c0\n\n"zod@npm:^4": {}\n';
    expect(yarnFlavour(project({ "package.json": "{}", "yarn.lock": berryLock }))).toBe("berry");
    const classicLock = '# yarn lockfile v1\n\nzod@^4:\n  version "4.1.0"\n';
    expect(yarnFlavour(project({ "package.json": "{}", "yarn.lock": classicLock }))).toBe(
      "classic",
    );
  });
});

describe("Plug'n'Play", () => {
  it("Yarn Berry without nodeLinker, or with pnp; not with node-modules, not for classic", () => {
    const berry = JSON.stringify({ packageManager: "yarn@4.18.1" });
    expect(usesPlugNPlay(project({ "package.json": berry }))).toBe(true);
    expect(
      usesPlugNPlay(project({ "package.json": berry, ".yarnrc.yml": "nodeLinker: pnp\n" })),
    ).toBe(true);
    expect(
      usesPlugNPlay(
        project({ "package.json": berry, ".yarnrc.yml": 'nodeLinker: "node-modules"\n' }),
      ),
    ).toBe(false);
    expect(
      usesPlugNPlay(project({ "package.json": "{}", "yarn.lock": "# yarn lockfile v1\n" })),
    ).toBe(false);
    expect(usesPlugNPlay(project({ "package.json": "{}", "package-lock.json": "{}" }))).toBe(false);
  });
});
