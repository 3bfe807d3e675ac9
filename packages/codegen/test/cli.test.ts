// Errors, not crashes, and never an empty success.
// Through the built CLI: each bad definition gives one `file#pointer: message`
// line, exit 1, no stack trace, and the disk exactly as it was (output folder,
// identifier lock, no temporary folders).
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join, relative, sep } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type CliResult, wfrCodegen } from "./cli-process.js";
import { cleanupTempDirs, tempDir } from "./helpers.js";

afterAll(cleanupTempDirs);

interface YamlSpec {
  readonly env?: string;
  readonly pathId?: string;
  readonly name?: string;
  /** The YAML of the inputs' `properties` map, indented for its place (18 spaces). */
  readonly inputProperties?: string;
  /** Extra top-level YAML before `paths` (anchors must come before their aliases). */
  readonly head?: string;
  /** Extra top-level YAML after `paths` (components). */
  readonly extra?: string;
}

/** A small valid definition in YAML, written as text so tests can put anchors, aliases and merge keys in it. */
function yamlDefinition(spec: YamlSpec = {}): string {
  const id = spec.pathId ?? "wf_1";
  return `openapi: 3.1.0
info: {title: t, version: "1", x-environment: ${spec.env ?? "prod"}}
servers: [{url: "https://x.test/api/v1"}]
${spec.head ?? ""}paths:
  /automations/${id}/runs:
    post:
      x-workflow: {id: ${JSON.stringify(id)}, name: ${JSON.stringify(spec.name ?? "Invoice intake")}}
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                inputs:
                  type: object
                  additionalProperties: false
                  properties:
${spec.inputProperties ?? "                    vendor_name: {type: string}"}
${spec.extra ?? ""}`;
}

/** Every file and folder under `dir` except `schemas/`, with file contents: what generate may change. */
function diskState(dir: string): Record<string, string> {
  const state: Record<string, string> = {};
  const walk = (d: string) => {
    for (const entry of readdirSync(d).sort()) {
      const full = join(d, entry);
      const key = relative(dir, full).split(sep).join("/");
      if (key === "schemas") continue;
      if (statSync(full).isDirectory()) {
        state[`${key}/`] = "";
        walk(full);
      } else state[key] = readFileSync(full, "utf8");
    }
  };
  walk(dir);
  return state;
}

/** A project with schemas/<env>/openapi.yaml per given definition, generated once (exit 0). */
function generatedProject(definitions: Record<string, string>): string {
  const dir = tempDir("wfr-errors-");
  for (const [env, text] of Object.entries(definitions)) {
    const file = join(dir, "schemas", env, "openapi.yaml");
    mkdirp(join(dir, "schemas", env));
    writeFileSync(file, text);
  }
  const first = wfrCodegen(["generate"], dir);
  expect(first.stderr).toBe("");
  expect(first.status).toBe(0);
  return dir;
}

function mkdirp(dir: string): void {
  mkdirSync(dir, { recursive: true });
}

/** The one-line error contract: `wfr-codegen: <file>#<pointer>: <message>`, exit 1, nothing on stdout, no stack. */
function expectDefinitionError(r: CliResult, file: string, pointer: string, message: RegExp) {
  expect(r.status, r.stderr).toBe(1);
  expect(r.stdout).toBe("");
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  const prefix = `wfr-codegen: ${file}#${pointer}: `;
  expect(r.stderr.startsWith(prefix), r.stderr).toBe(true);
  expect(r.stderr.slice(prefix.length)).toMatch(message);
}

/** Replaces prod's definition with `text`, generates, and checks the error and that nothing was written. */
function failsWithoutWriting(text: string) {
  const dir = generatedProject({ prod: yamlDefinition() });
  const before = diskState(dir);
  writeFileSync(join(dir, "schemas", "prod", "openapi.yaml"), text);
  const r = wfrCodegen(["generate"], dir);
  expect(diskState(dir)).toEqual(before);
  return r;
}

const LAUNCH = "/paths/~1automations~1wf_1~1runs/post";
const INPUTS = `${LAUNCH}/requestBody/content/application~1json/schema/properties/inputs`;

describe("a bad definition is one error line, exit 1, nothing written", () => {
  it("a YAML alias cycle names where the alias points back into its own anchor", () => {
    const r = failsWithoutWriting(
      yamlDefinition({
        inputProperties:
          "                    tree: &node\n                      type: object\n                      properties:\n                        child: *node",
      }),
    );
    expectDefinitionError(
      r,
      "prod/openapi.yaml",
      `${INPUTS}/properties/tree/properties/child`,
      /^YAML alias cycle: this alias refers to its own enclosing node \(.*\/properties\/tree\)/,
    );
  });

  // A new workflow (wf_2): wf_1's identifier is pinned by the lock and would not change.
  const NEW_LAUNCH = "/paths/~1automations~1wf_2~1runs/post";

  it("a workflow name of 80 words is too long for its file names", () => {
    const name = Array.from({ length: 80 }, (_, i) => `word${i}`).join(" ");
    const r = failsWithoutWriting(yamlDefinition({ pathId: "wf_2", name }));
    expectDefinitionError(
      r,
      "prod/openapi.yaml",
      `${NEW_LAUNCH}/x-workflow/name`,
      /too long to name its generated files .*pin a shorter identifier in wfr\.codegen\.json \(aliases\.prod\.wf_2\)/,
    );
  });

  it("a workflow name of 90 CJK characters (270 bytes) is too long for its file names", () => {
    const r = failsWithoutWriting(yamlDefinition({ pathId: "wf_2", name: "請求書".repeat(30) }));
    expectDefinitionError(
      r,
      "prod/openapi.yaml",
      `${NEW_LAUNCH}/x-workflow/name`,
      /\(請求書.*\.\.\., 270 bytes\) is too long/,
    );
  });

  it("a launch path with a bad percent-escape names the path", () => {
    const r = failsWithoutWriting(yamlDefinition({ pathId: "wf_%E0%A4%A" }));
    expectDefinitionError(
      r,
      "prod/openapi.yaml",
      "/paths/~1automations~1wf_%E0%A4%A~1runs",
      /^"wf_%E0%A4%A" is not valid percent-encoding/,
    );
  });

  it("a $ref with a bad percent-escape names the referring schema", () => {
    const r = failsWithoutWriting(
      yamlDefinition({
        inputProperties: '                    vendor: {$ref: "common%ZZ.yaml#/X"}',
      }),
    );
    expectDefinitionError(
      r,
      "prod/openapi.yaml",
      `${INPUTS}/properties/vendor`,
      /not valid percent-encoding/,
    );
  });

  it("a $ref back to its own schema, not below a property or an item, names where it is", () => {
    // A tree (`children: {items: {$ref: Node}}`) is read: test/emit/recursive.test.ts.
    const r = failsWithoutWriting(
      yamlDefinition({
        inputProperties: '                    tree: {$ref: "#/components/schemas/Node"}',
        extra: `components:
  schemas:
    Node:
      anyOf: [{type: string}, {$ref: "#/components/schemas/Node"}]
`,
      }),
    );
    expectDefinitionError(
      r,
      "prod/openapi.yaml",
      "/components/schemas/Node/anyOf/1",
      /^`\$ref` comes back to prod\/openapi\.yaml#\/components\/schemas\/Node without going into a property or an item/,
    );
  });
});

describe("YAML merge keys", () => {
  it("`<<: *anchor` merges the anchored properties (the local key wins)", () => {
    const dir = generatedProject({
      prod: yamlDefinition({
        inputProperties: `                    <<: *common
                    note: {type: string}`,
        head: `x-common: &common
  vendor_name: {type: string}
  note: {type: integer}
`,
      }),
    });
    const types = readFileSync(
      join(dir, "packages", "generated", "src", "prod", "invoiceIntake.types.d.ts"),
      "utf8",
    );
    expect(types).toMatch(/vendor_name\?: string/);
    expect(types).toMatch(/note\?: string/);
    expect(types).not.toContain("<<");
  });
});

describe("never an empty success", () => {
  const out = (dir: string, ...p: string[]) => join(dir, "packages", "generated", "src", ...p);

  it("an empty schemas/ exits 1 and keeps the generated code; --allow-remove deletes it", () => {
    const dir = generatedProject({ prod: yamlDefinition() });
    const before = diskState(dir);
    rmSync(join(dir, "schemas", "prod"), { recursive: true });
    const r = wfrCodegen(["generate"], dir);
    expectDefinitionError(
      r,
      join(dir, "schemas", "prod"),
      "",
      /^the folder does not exist; generating would delete the generated code of environment "prod" .*pass --allow-remove prod to delete it/,
    );
    expect(diskState(dir)).toEqual(before);

    const allowed = wfrCodegen(["generate", "--allow-remove", "prod"], dir);
    expect(allowed.stderr).toBe("");
    expect(allowed.status).toBe(0);
    expect(existsSync(out(dir, "prod"))).toBe(false);
    expect(
      readFileSync(join(dir, "packages", "generated", "identifiers.lock.json"), "utf8"),
    ).not.toContain("prod");
  });

  it("a misspelt openapi.jsn exits 1, names the file it found, and keeps the generated code", () => {
    const dir = generatedProject({
      prod: yamlDefinition(),
      other: yamlDefinition({ env: "other" }),
    });
    const before = diskState(dir);
    renameSync(
      join(dir, "schemas", "prod", "openapi.yaml"),
      join(dir, "schemas", "prod", "openapi.jsn"),
    );
    const r = wfrCodegen(["generate"], dir);
    expectDefinitionError(
      r,
      join(dir, "schemas", "prod"),
      "",
      /^the folder holds no openapi\.json, openapi\.yaml, openapi\.yml \(it holds openapi\.jsn\); generating would delete .*--allow-remove prod/,
    );
    expect(diskState(dir)).toEqual(before);

    // Allowing another environment's removal is not enough.
    expect(wfrCodegen(["generate", "--allow-remove", "other"], dir).status).toBe(1);
    expect(diskState(dir)).toEqual(before);

    const allowed = wfrCodegen(["generate", "--allow-remove=prod"], dir);
    expect(allowed.status, allowed.stderr).toBe(0);
    expect(existsSync(out(dir, "prod"))).toBe(false);
    expect(existsSync(out(dir, "other", "index.js"))).toBe(true);
  });

  it("zero environments with nothing generated before is an error too", () => {
    const dir = tempDir("wfr-errors-");
    mkdirp(join(dir, "schemas", "prod"));
    writeFileSync(join(dir, "schemas", "prod", "openapi.jsn"), yamlDefinition());
    const r = wfrCodegen(["generate"], dir);
    expectDefinitionError(
      r,
      join(dir, "schemas"),
      "",
      /^no environment to generate: .*prod: the folder holds no openapi\.json, openapi\.yaml, openapi\.yml \(it holds openapi\.jsn\)/,
    );
    expect(existsSync(join(dir, "packages"))).toBe(false);
  });
});
