// `wfr schemas pull` through the built bin against the emulator: written, --check, unknown environment.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../../src/exit-codes.js";
import { type Fixture, startPulledFixture } from "../../harness.js";

let fx: Fixture;
beforeAll(async () => {
  fx = await startPulledFixture();
});
afterAll(async () => {
  await fx?.close();
});

const wfr: Fixture["wfr"] = (args, extra) => fx.wfr(args, extra);

describe("schemas pull", () => {
  it("wrote the definition and --check is identical (exit 0)", async () => {
    expect(existsSync(join(fx.dir, "schemas/production/openapi.json"))).toBe(true);
    const r = await wfr(["schemas", "pull", "--check"]);
    expect(r.code, r.stderr).toBe(EXIT.OK);
    expect(r.stderr).toContain("production: up to date");
  });

  it("--check reports non-breaking drift with exit 3 and writes nothing", async () => {
    const file = join(fx.dir, "schemas/production/openapi.json");
    const original = readFileSync(file, "utf8");
    const doc = JSON.parse(original);
    // The committed file lacks a workflow the environment now has: an addition is non-breaking.
    const paths = Object.keys(doc.paths);
    const broken = paths.find((p) => p.includes("wf_broken1"));
    expect(broken).toBeDefined();
    delete doc.paths[broken as string];
    writeFileSync(file, JSON.stringify(doc, null, 2));
    try {
      const r = await wfr(["schemas", "pull", "--check"]);
      expect(r.code, r.stdout + r.stderr).toBe(EXIT.DRIFT_NON_BREAKING);
      expect(r.stdout).toContain("0 breaking");
      expect(r.stdout).toContain("Broken portal");
      expect(readFileSync(file, "utf8")).toBe(JSON.stringify(doc, null, 2));
    } finally {
      writeFileSync(file, original);
    }
  });

  it("fails naming the environment for an unknown one", async () => {
    const r = await wfr(["schemas", "pull", "nope"]);
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.stderr).toContain('unknown environment "nope"');
  });
});
