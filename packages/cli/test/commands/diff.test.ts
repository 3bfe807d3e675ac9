// `wfr diff` calls @wfr/codegen directly (not through its command line): it reads the identifier
// pins `wfr generate` keeps beside the generated code, and its gate keeps exit 4. Through the built bin.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { runWfr } from "../harness.js";
import { project, removeProjects, rename } from "../sample-project.js";

afterAll(removeProjects);
it("wfr diff reads the identifier lock wfr generate wrote: a rename is not an identifier change; the gate exits 4", async () => {
  const dir = project();
  const generated = await runWfr(["generate"], { cwd: dir });
  expect(generated.code, generated.stderr).toBe(EXIT.OK);
  expect(readFileSync(join(dir, "generated", "identifiers.lock.json"), "utf8")).toContain(
    '"wf_P7Qd2Lx9": "invoiceIntake"',
  );
  rename(dir, "wf_P7Qd2Lx9", "Invoice capture");

  const json = await runWfr(["diff", "old", "schemas/sample", "--format", "json"], {
    cwd: dir,
  });
  expect(json.stderr).toBe("");
  expect(json.code).toBe(EXIT.OK);
  const kinds = (JSON.parse(json.stdout) as { changes: { kind: string }[] }).changes.map(
    (c) => c.kind,
  );
  expect(kinds).toContain("workflow-renamed");
  expect(kinds).not.toContain("workflow-identifier-changed");

  const gated = await runWfr(["diff", "old", "schemas/sample", "--fail-on", "any"], {
    cwd: dir,
  });
  expect(gated.code).toBe(EXIT.DRIFT_BREAKING);
  expect(gated.stdout).toContain("[workflow-renamed]");
  const passes = await runWfr(["diff", "old", "schemas/sample", "--fail-on", "breaking"], {
    cwd: dir,
  });
  expect(passes.code).toBe(EXIT.OK);

  const missing = await runWfr(["diff", "old", "nope"], { cwd: dir });
  expect(missing.code).toBe(EXIT.USAGE);
  expect(missing.stderr).toBe("wfr: diff: nope: no such file or folder\n");
});
