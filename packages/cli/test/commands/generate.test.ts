// `wfr generate` calls @wfr/codegen's typed generate (not its command line): it refuses to delete an
// environment's code unless `--allow-remove <env>` asks for it, and a broken definition is not
// "stale"; it writes only the files whose content changed. Through the built bin. `--watch`:
// generate/watch.test.ts.
import {
  cpSync,
  existsSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { listFiles } from "@wfr/codegen";
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

it("wfr generate writes only the files whose content changed: a one-field edit touches that workflow's files and the manifest", async () => {
  const dir = project();
  const out = join(dir, "generated", "src");
  expect((await runWfr(["generate"], { cwd: dir })).code).toBe(EXIT.OK);
  const files = listFiles(out);
  // Every file dated in the past: a file written again gets today's mtime.
  const past = new Date("2001-01-01T00:00:00Z");
  const touched = () =>
    files.filter((f) => statSync(join(out, f)).mtimeMs !== past.getTime()).sort();
  for (const f of files) utimesSync(join(out, f), past, past);

  const again = await runWfr(["generate"], { cwd: dir });
  expect(again.code, again.stderr).toBe(EXIT.OK);
  expect(touched()).toEqual([]);
  expect(again.stdout).toContain(
    `wrote 0 of ${files.length} files (${files.length} unchanged, 0 removed)`,
  );

  // One field of Invoice intake (wf_P7Qd2Lx9) gets a new description.
  const definition = join(dir, "schemas", "sample", "openapi.json");
  const doc = JSON.parse(readFileSync(definition, "utf8"));
  doc.components.schemas.Workflow_wf_P7Qd2Lx9_Inputs.properties.vendor_name.description =
    "The vendor's legal name, as on the invoice";
  writeFileSync(definition, JSON.stringify(doc, null, 2));
  const edited = await runWfr(["generate"], { cwd: dir });
  expect(edited.code, edited.stderr).toBe(EXIT.OK);
  const changed = touched();
  expect(changed).toContain("wfr-manifest.json");
  expect(changed.some((f) => f.startsWith("sample/invoiceIntake."))).toBe(true);
  for (const f of changed) expect(f).toMatch(/^(wfr-manifest\.json|sample\/invoiceIntake\.)/);
  expect(edited.stdout).toContain(
    `wrote ${changed.length} of ${files.length} files (${files.length - changed.length} unchanged, 0 removed)`,
  );

  // A file nothing generates any more is deleted, and counted.
  writeFileSync(join(out, "sample", "gone.js"), "export {};\n");
  const cleaned = await runWfr(["generate"], { cwd: dir });
  expect(cleaned.stdout).toContain(
    `wrote 0 of ${files.length} files (${files.length} unchanged, 1 removed)`,
  );
  expect(existsSync(join(out, "sample", "gone.js"))).toBe(false);
});
