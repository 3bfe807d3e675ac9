// generateProject: generate and --check as one typed call; the shells only print its outcome.
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DefinitionError } from "../src/definition-error.js";
import { describeGenerateOutcome, generateProject } from "../src/generate-project.js";
import { cleanupTempDirs, copyExamples, tempDir } from "./helpers.js";

afterAll(cleanupTempDirs);

describe("generateProject", () => {
  it("writes, then finds the output up to date, then names what a deletion made stale", () => {
    const out = join(tempDir(), "out");
    const options = { schemas: copyExamples(), out };
    const written = generateProject(options);
    expect(written).toMatchObject({ kind: "written", environments: expect.any(Number) });
    if (written.kind !== "written") throw new Error("not written");
    expect(written.files).toBeGreaterThan(0);
    expect(generateProject({ ...options, check: true })).toEqual({
      kind: "up-to-date",
      files: written.files,
      environments: written.environments,
    });
    rmSync(join(out, "sample-staging.js"));
    const stale = generateProject({ ...options, check: true });
    expect(stale).toEqual({
      kind: "stale",
      problems: [{ kind: "missing", path: "sample-staging.js" }],
    });
    expect(
      describeGenerateOutcome(stale, {
        program: "wfr",
        out: "out",
        schemas: "schemas",
        regenerate: "npm run generate",
      }),
    ).toEqual({
      stream: "stderr",
      text: "wfr: out does not match schemas (run `npm run generate`):\n  missing: sample-staging.js\n",
    });
  });

  it("throws DefinitionError for a definition it cannot read, and writes nothing", () => {
    const schemas = copyExamples();
    writeFileSync(join(schemas, "sample", "openapi.json"), "{ not json");
    const out = join(tempDir(), "out");
    expect(() => generateProject({ schemas, out })).toThrow(DefinitionError);
    expect(existsSync(out)).toBe(false);
  });
});
