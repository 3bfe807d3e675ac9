import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify as stringifyYaml } from "yaml";
import type { DiffChange, DiffReport } from "../src/diff.js";
import { runDiffCommand } from "../src/diff-cli.js";
import type { EnvironmentModel } from "../src/model.js";
import { env, field, workflow } from "./diff-factory.js";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, "../../..");
const production = join(repoRoot, "schemas/sample");
const staging = join(repoRoot, "schemas/sample-staging");

function capture() {
  let out = "";
  let err = "";
  return {
    io: {
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: (s: string) => (err += s) },
    },
    get out() {
      return out;
    },
    get err() {
      return err;
    },
  };
}

/** A reader over hand-built models stored as JSON (`<dir>/openapi.json` holds a model). */
const modelReader = (file: string): EnvironmentModel =>
  JSON.parse(readFileSync(file, "utf8")) as EnvironmentModel;

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "wfr-diff-test-"));
  const before = env([workflow({ inputs: [field("a")] })]);
  const after = env([workflow({ inputs: [field("a"), field("b", { required: false })] })]);
  const broken = env([workflow({ inputs: [] })]);
  await mkdir(join(tmp, "before"));
  await writeFile(join(tmp, "before/openapi.json"), JSON.stringify(before));
  await writeFile(join(tmp, "after.json"), JSON.stringify(after));
  await writeFile(join(tmp, "broken.json"), JSON.stringify(broken));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe("runDiffCommand (hand-built models)", () => {
  it("reads a folder and a file, prints text, exits 0 without --fail-on", async () => {
    const c = capture();
    const code = await runDiffCommand(["diff", "before", "after.json"], {
      ...c.io,
      cwd: tmp,
      readDefinition: modelReader,
    });
    expect(code).toBe(0);
    expect(c.out).toContain("[input-added-optional]");
    expect(c.err).toBe("");
  });

  it("--fail-on breaking exits 1 only when something breaks", async () => {
    const c = capture();
    const opts = { ...c.io, cwd: tmp, readDefinition: modelReader };
    expect(await runDiffCommand(["before", "broken.json", "--fail-on", "breaking"], opts)).toBe(1);
    expect(await runDiffCommand(["before", "after.json", "--fail-on", "breaking"], opts)).toBe(0);
    expect(await runDiffCommand(["before", "after.json", "--fail-on=any"], opts)).toBe(1);
    expect(await runDiffCommand(["before", "broken.json", "--fail-on", "none"], opts)).toBe(0);
  });

  it("prints JSON and Markdown", async () => {
    const c = capture();
    const opts = { ...c.io, cwd: tmp, readDefinition: modelReader };
    await runDiffCommand(["before", "broken.json", "--format", "json"], opts);
    const report = JSON.parse(c.out) as DiffReport;
    expect(report.summary).toEqual({ breaking: 1, nonBreaking: 0 });
    const m = capture();
    await runDiffCommand(["before", "broken.json", "--format", "markdown"], {
      ...m.io,
      cwd: tmp,
      readDefinition: modelReader,
    });
    expect(m.out).toMatch(/^## Workflow definition diff/);
  });

  it.each([
    [[], "expected two definitions"],
    [["a"], "expected two definitions"],
    [["a", "b", "c"], "expected two definitions"],
    [["a", "b", "--format", "html"], "--format must be one of text, markdown, json"],
    [["a", "b", "--fail-on"], "--fail-on needs a value"],
    [["a", "b", "--match-by", "x"], "--match-by must be one of id, name"],
    [["a", "b", "--verbose", "1"], "unknown option --verbose"],
  ])("usage error %j exits 2", async (argv, message) => {
    const c = capture();
    expect(await runDiffCommand(argv as string[], { ...c.io, readDefinition: modelReader })).toBe(
      2,
    );
    expect(c.err).toContain(message);
    expect(c.err).toContain("usage: wfr diff");
    expect(c.out).toBe("");
  });

  it("--help prints the usage and exits 0", async () => {
    const c = capture();
    expect(await runDiffCommand(["diff", "--help"], c.io)).toBe(0);
    expect(c.out).toContain("usage: wfr diff <old> <new>");
  });

  it("--match-by id across environments reports removed + added", async () => {
    const c = capture();
    const code = await runDiffCommand(
      [production, staging, "--match-by", "id", "--format", "json"],
      c.io,
    );
    expect(code).toBe(0);
    const report = JSON.parse(c.out) as DiffReport;
    expect(report.changes.filter((x) => x.kind === "workflow-removed")).toHaveLength(5);
    expect(report.changes.filter((x) => x.kind === "workflow-added")).toHaveLength(5);
  });

  it("a missing file exits 2 and names it", async () => {
    const c = capture();
    const code = await runDiffCommand(["before", "nope/openapi.yaml"], {
      ...c.io,
      cwd: tmp,
      readDefinition: modelReader,
    });
    expect(code).toBe(2);
    expect(c.err).toContain("nope/openapi.yaml: no such file or folder");
  });

  it("a folder without a definition exits 2 and names it", async () => {
    const c = capture();
    await mkdir(join(tmp, "empty"), { recursive: true });
    const code = await runDiffCommand(["empty", "after.json"], {
      ...c.io,
      cwd: tmp,
      readDefinition: modelReader,
    });
    expect(code).toBe(2);
    expect(c.err).toContain("empty: the folder holds no openapi.json");
  });
});

describe("runDiffCommand (the repo's example schemas, with the real reader)", () => {
  it("production -> staging classifies each change", async () => {
    const c = capture();
    const code = await runDiffCommand(
      [production, staging, "--format", "json", "--fail-on", "breaking"],
      c.io,
    );
    expect(c.err).toBe("");
    expect(code).toBe(1);
    const report = JSON.parse(c.out) as DiffReport;
    expect(report.old.environment).toBe("sample");
    expect(report.new.environment).toBe("sample-staging");
    const pick = (c: DiffChange) => [c.workflowName, c.severity, c.kind, c.path];
    const changes = report.changes.map(pick);
    expect(changes).toContainEqual([
      "Invoice intake",
      "breaking",
      "input-added-required",
      "inputs.po_number",
    ]);
    expect(changes).toContainEqual([
      "Invoice intake",
      "breaking",
      "output-removed",
      "outputs.ledger_lines",
    ]);
    expect(changes).toContainEqual([
      "Invoice intake",
      "non-breaking",
      "output-added",
      "outputs.ledger_entries",
    ]);
    expect(changes).toContainEqual([
      "Draft customer reply",
      "breaking",
      "output-type-changed",
      "outputs.confidence",
    ]);
    expect(changes).toContainEqual([
      "Quarterly close report",
      "breaking",
      "workflow-removed",
      null,
    ]);
    expect(changes).toContainEqual([
      "Legacy vendor export",
      "non-breaking",
      "workflow-added",
      null,
    ]);
    expect(changes).toContainEqual([
      "Invoice intake",
      "non-breaking",
      "workflow-revision-changed",
      null,
    ]);
    expect(changes).toContainEqual([
      "Draft customer reply",
      "non-breaking",
      "workflow-revision-changed",
      null,
    ]);
    // Matched by name across environments: the staging ids are reported.
    const invoice = report.changes.find((c) => c.workflowName === "Invoice intake");
    expect(invoice?.workflowId).toBe("wf_S4aa81Qe");
    // Unchanged workflows report nothing.
    expect(report.changes.some((c) => c.workflowName === "CRM contact sync")).toBe(false);
    expect(report.changes.some((c) => c.workflowName === "Supplier portal login check")).toBe(
      false,
    );
  });

  it("the same definition against itself has no changes", async () => {
    const c = capture();
    const code = await runDiffCommand([production, join(production, "openapi.json")], c.io);
    expect(code).toBe(0);
    expect(c.out).toContain("No changes.");
  });

  it("a file that is not a definition exits 2 and names the file", async () => {
    const bad = join(tmp, "bad/openapi.json");
    await mkdir(dirname(bad), { recursive: true });
    await writeFile(bad, JSON.stringify({ hello: "world" }));
    const c = capture();
    const code = await runDiffCommand([production, bad], c.io);
    expect(code).toBe(2);
    expect(c.err).toContain("openapi.json");
    expect(c.out).toBe("");
  });

  describe("against a freshly downloaded definition", () => {
    let server: Server;
    let base: string;
    beforeAll(async () => {
      const body = readFileSync(join(staging, "openapi.json"));
      server = createServer((req, res) => {
        if (req.url === "/openapi.yaml") {
          res.writeHead(200, { "content-type": "application/yaml" });
          res.end(stringifyYaml(JSON.parse(body.toString("utf8"))));
        } else if (req.url === "/openapi.json") {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(body);
        } else {
          res.writeHead(404);
          res.end("not found");
        }
      });
      await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise<void>((done, fail) => server.close((e) => (e ? fail(e) : done())));
    });

    it("diffs schemas/<env> against a URL", async () => {
      const c = capture();
      const url = `${base}/openapi.json`;
      const code = await runDiffCommand([production, url, "--format", "json"], c.io);
      expect(c.err).toBe("");
      expect(code).toBe(0);
      const report = JSON.parse(c.out) as DiffReport;
      expect(report.new).toEqual({ environment: "sample-staging", sourceFile: url });
      expect(report.summary.breaking).toBeGreaterThan(0);
    });

    it("reads a downloaded YAML definition", async () => {
      const c = capture();
      const code = await runDiffCommand([staging, `${base}/openapi.yaml`], c.io);
      expect(c.err).toBe("");
      expect(code).toBe(0);
      expect(c.out).toContain("No changes.");
    });

    it("a failed download exits 2 and names the URL", async () => {
      const c = capture();
      const url = `${base}/missing.json`;
      const code = await runDiffCommand([production, url], c.io);
      expect(code).toBe(2);
      expect(c.err).toContain(`${url}: download failed: HTTP 404`);
    });
  });
});
