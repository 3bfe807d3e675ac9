// `wfr diff` and `wfr generate` call @wfr/codegen directly (not through its command line):
// the diff reads the identifier pins generate keeps beside the generated code,
// its gate keeps exit 4, and `wfr generate` refuses to delete an environment's
// code unless `--allow-remove <env>` asks for it. Through the built bin.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";
import { runWfr } from "./harness.js";

const EXAMPLES = resolve(fileURLToPath(import.meta.url), "../../../../schemas");
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "wfr-codegen-cmd-"));
  made.push(dir);
  writeFileSync(
    join(dir, "wfr.config.json"),
    JSON.stringify({
      schemas: "schemas",
      generatedOut: "generated/src",
      environments: [
        { name: "production", baseUrl: "http://127.0.0.1:9/api/v1", apiKeyEnv: "WFR_KEY" },
      ],
    }),
  );
  cpSync(join(EXAMPLES, "production"), join(dir, "schemas", "production"), { recursive: true });
  cpSync(join(EXAMPLES, "production"), join(dir, "old"), { recursive: true });
  return dir;
}

function rename(dir: string, id: string, name: string): void {
  const file = join(dir, "schemas", "production", "openapi.json");
  const doc = JSON.parse(readFileSync(file, "utf8"));
  doc.paths[`/automations/${id}/runs`].post["x-workflow"].name = name;
  writeFileSync(file, JSON.stringify(doc, null, 2));
}

it("wfr diff reads the identifier lock wfr generate wrote: a rename is not an identifier change; the gate exits 4", async () => {
  const dir = project();
  const generated = await runWfr(["generate"], { cwd: dir });
  expect(generated.code, generated.stderr).toBe(EXIT.OK);
  expect(readFileSync(join(dir, "generated", "identifiers.lock.json"), "utf8")).toContain(
    '"wf_P7Qd2Lx9": "invoiceIntake"',
  );
  rename(dir, "wf_P7Qd2Lx9", "Invoice capture");

  const json = await runWfr(["diff", "old", "schemas/production", "--format", "json"], {
    cwd: dir,
  });
  expect(json.stderr).toBe("");
  expect(json.code).toBe(EXIT.OK);
  const kinds = (JSON.parse(json.stdout) as { changes: { kind: string }[] }).changes.map(
    (c) => c.kind,
  );
  expect(kinds).toContain("workflow-renamed");
  expect(kinds).not.toContain("workflow-identifier-changed");

  const gated = await runWfr(["diff", "old", "schemas/production", "--fail-on", "any"], {
    cwd: dir,
  });
  expect(gated.code).toBe(EXIT.DRIFT_BREAKING);
  expect(gated.stdout).toContain("[workflow-renamed]");
  const passes = await runWfr(["diff", "old", "schemas/production", "--fail-on", "breaking"], {
    cwd: dir,
  });
  expect(passes.code).toBe(EXIT.OK);

  const missing = await runWfr(["diff", "old", "nope"], { cwd: dir });
  expect(missing.code).toBe(EXIT.USAGE);
  expect(missing.stderr).toBe("wfr: diff: nope: no such file or folder\n");
});

it("wfr generate refuses to delete an environment's generated code unless --allow-remove names it", async () => {
  const dir = project();
  expect((await runWfr(["generate"], { cwd: dir })).code).toBe(EXIT.OK);
  const before = readFileSync(join(dir, "generated", "src", "production", "index.js"), "utf8");
  rmSync(join(dir, "schemas", "production", "openapi.json"));

  const refused = await runWfr(["generate"], { cwd: dir });
  expect(refused.code).toBe(EXIT.DEFINITION_INVALID);
  expect(refused.stderr).toContain("--allow-remove production");
  expect(refused.stderr).not.toMatch(/\n\s+at /);
  expect(readFileSync(join(dir, "generated", "src", "production", "index.js"), "utf8")).toBe(
    before,
  );

  const allowed = await runWfr(["generate", "--allow-remove", "production"], { cwd: dir });
  expect(allowed.code, allowed.stderr).toBe(EXIT.OK);
  expect(() => readFileSync(join(dir, "generated", "src", "production", "index.js"))).toThrow();
});

it("wfr generate --check on a definition that cannot be parsed exits DEFINITION_INVALID, not 'stale'", async () => {
  const dir = project();
  expect((await runWfr(["generate"], { cwd: dir })).code).toBe(EXIT.OK);
  writeFileSync(join(dir, "schemas", "production", "openapi.json"), "{ not json");
  const checked = await runWfr(["generate", "--check"], { cwd: dir });
  expect(checked.code, checked.stderr).toBe(EXIT.DEFINITION_INVALID);
  expect(checked.stderr).toContain("openapi.json");
  // A definition that parses but no longer matches the output is still drift.
  cpSync(join(EXAMPLES, "production"), join(dir, "schemas", "production"), { recursive: true });
  rename(dir, "wf_P7Qd2Lx9", "Invoice capture");
  expect((await runWfr(["generate", "--check"], { cwd: dir })).code).toBe(EXIT.DRIFT_NON_BREAKING);
});

it("a mistyped subcommand or a missing required option is a usage error (exit 2)", async () => {
  const dir = project();
  const typo = await runWfr(["runs", "wach", "run_1"], { cwd: dir });
  expect(typo.code, typo.stderr).toBe(EXIT.USAGE);
  const missing = await runWfr(["runs", "recording", "run_1"], { cwd: dir });
  expect(missing.code, missing.stderr).toBe(EXIT.USAGE);
  expect(missing.stderr).toContain("--output");
});
