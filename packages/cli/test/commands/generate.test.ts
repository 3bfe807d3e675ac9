// `wfr generate` calls @wfr/codegen's typed generate (not its command line): it refuses to delete an
// environment's code unless `--allow-remove <env>` asks for it, and a broken definition is not
// "stale". Through the built bin. `--watch`: generate/watch.test.ts.
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { runWfr } from "../harness.js";
import { EXAMPLES, project, removeProjects, rename } from "../sample-project.js";

afterAll(removeProjects);
it("wfr generate refuses to delete an environment's generated code unless --allow-remove names it", async () => {
  const dir = project();
  expect((await runWfr(["generate"], { cwd: dir })).code).toBe(EXIT.OK);
  const before = readFileSync(join(dir, "generated", "src", "sample", "index.js"), "utf8");
  rmSync(join(dir, "schemas", "sample", "openapi.json"));

  const refused = await runWfr(["generate"], { cwd: dir });
  expect(refused.code).toBe(EXIT.DEFINITION_INVALID);
  expect(refused.stderr).toContain("--allow-remove sample");
  expect(refused.stderr).not.toMatch(/\n\s+at /);
  expect(readFileSync(join(dir, "generated", "src", "sample", "index.js"), "utf8")).toBe(before);

  const allowed = await runWfr(["generate", "--allow-remove", "sample"], { cwd: dir });
  expect(allowed.code, allowed.stderr).toBe(EXIT.OK);
  expect(() => readFileSync(join(dir, "generated", "src", "sample", "index.js"))).toThrow();
});

it("wfr generate --check on a definition that cannot be parsed exits DEFINITION_INVALID, not 'stale'", async () => {
  const dir = project();
  expect((await runWfr(["generate"], { cwd: dir })).code).toBe(EXIT.OK);
  writeFileSync(join(dir, "schemas", "sample", "openapi.json"), "{ not json");
  const checked = await runWfr(["generate", "--check"], { cwd: dir });
  expect(checked.code, checked.stderr).toBe(EXIT.DEFINITION_INVALID);
  expect(checked.stderr).toContain("openapi.json");
  // A definition that parses but no longer matches the output is still drift.
  cpSync(join(EXAMPLES, "sample"), join(dir, "schemas", "sample"), { recursive: true });
  rename(dir, "wf_P7Qd2Lx9", "Invoice capture");
  expect((await runWfr(["generate", "--check"], { cwd: dir })).code).toBe(EXIT.DRIFT_NON_BREAKING);
});
