// Identifiers are stable across regenerations: `generate` maintains
// identifiers.lock.json beside the output folder (id -> identifier), so renaming a workflow's
// display name keeps `workflows.<identifier>` and prints how to adopt the new
// name; `--check` reports a stale lock.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../src/cli.js";
import {
  capturedOutput,
  cleanupTempDirs,
  copyExamples,
  readJson,
  tempDir,
  writeJson,
} from "./helpers.js";

afterAll(cleanupTempDirs);

describe("identifier lock", () => {
  it("a display-name rename keeps the identifier, prints a note, and removing the entry adopts the new name", async () => {
    const schemas = copyExamples();
    const out = join(tempDir(), "out");
    const args = ["generate", "--schemas", schemas, "--out", out];
    expect(await main(args, capturedOutput().streams)).toBe(0);
    const lockFile = join(dirname(out), "identifiers.lock.json");
    const lock = readJson(lockFile) as { environments: Record<string, Record<string, string>> };
    expect(lock.environments.sample?.wf_P7Qd2Lx9).toBe("invoiceIntake");

    const file = join(schemas, "sample", "openapi.json");
    const doc = readJson(file) as {
      paths: Record<string, { post: { "x-workflow": { name: string } } }>;
    };
    const wf = doc.paths["/automations/wf_P7Qd2Lx9/runs"]?.post["x-workflow"];
    if (!wf) throw new Error("example changed");
    wf.name = "Invoice capture";
    writeJson(file, doc);

    const renamed = capturedOutput();
    expect(await main(args, renamed.streams)).toBe(0);
    expect(existsSync(join(out, "sample", "invoiceIntake.js"))).toBe(true);
    expect(existsSync(join(out, "sample", "invoiceCapture.js"))).toBe(false);
    expect(readFileSync(join(out, "sample", "invoiceIntake.js"), "utf8")).toContain(
      '"Invoice capture"',
    );
    expect(renamed.io.out).toMatch(
      /wf_P7Qd2Lx9 is now named "Invoice capture" but keeps the identifier invoiceIntake/,
    );
    expect(renamed.io.out).toMatch(/to adopt invoiceCapture, remove its entry/);
    expect(await main([...args, "--check"], capturedOutput().streams)).toBe(0);

    const edited = readJson(lockFile) as { environments: Record<string, Record<string, string>> };
    delete edited.environments.sample?.wf_P7Qd2Lx9;
    writeJson(lockFile, edited);
    const stale = capturedOutput();
    expect(await main([...args, "--check"], stale.streams)).toBe(3);
    expect(stale.io.err).toContain("identifiers.lock.json");
    expect(await main(args, capturedOutput().streams)).toBe(0);
    expect(existsSync(join(out, "sample", "invoiceCapture.js"))).toBe(true);
    expect(readJson(lockFile)).toMatchObject({
      environments: { sample: { wf_P7Qd2Lx9: "invoiceCapture" } },
    });
  });

  it("a lock that is not JSON is an error naming the file", async () => {
    const schemas = copyExamples();
    const dir = tempDir();
    writeFileSync(join(dir, "identifiers.lock.json"), "{");
    const q = capturedOutput();
    expect(await main(["generate", "--schemas", schemas, "--out", join(dir, "o")], q.streams)).toBe(
      1,
    );
    expect(q.io.err).toMatch(/identifiers\.lock\.json#: not valid JSON/);
  });
});
