import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { emitDefinition } from "../../src/definition/definition-emit.js";
import {
  builtinCatalogJsonPath,
  builtinCatalogPath,
  CatalogError,
  catalogFromObject,
  loadCatalogFile,
} from "../../src/engine/catalog.js";
import type { JsonSchema } from "../../src/model/types.js";

// The repository's committed downloads of the emulator's definitions (schemas/<env>), which
// differ from the design's examples (/work/shared/examples/schemas) only by the responses each
// operation declares (definition-answers.ts) and the header components those use.
const EXAMPLES = fileURLToPath(new URL("../../../../schemas", import.meta.url));
const DESIGN_EXAMPLES = "/work/shared/examples/schemas";
// The repository's sample environments are named sample and sample-staging, so a team's own
// production and staging fit beside them; the emulator's built-in catalog keeps those names.
const REPO_CATALOG = fileURLToPath(new URL("../../../../catalog/sample.yaml", import.meta.url));
const BUILTIN_NAME: Record<string, string> = { sample: "production", "sample-staging": "staging" };

/**
 * A definition as the design's examples write it: without what the emulator states beyond them
 * (docs/definition-format.md, "What the emulator's definitions state beyond the design's
 * examples"): its operations' responses and the header components they use, the scopes of each
 * operation, `additionalProperties: true` (an open object is the default, so stating it changes
 * no verdict) and the fields and descriptions `Error` gained.
 */
function asDesigned(doc: JsonSchema): JsonSchema {
  const copy = structuredClone(doc);
  for (const item of Object.values(copy.paths as Record<string, Record<string, JsonSchema>>))
    for (const operation of Object.values(item)) {
      delete operation.responses;
      delete operation.security;
    }
  delete copy.components.headers;
  delete copy.components.securitySchemes.bearerAuth.description;
  const error = copy.components.schemas.Error.properties;
  for (const added of ["field", "required_scope", "state"]) delete error[added];
  delete error.attachment_id.description;
  delete error.details.description;
  return withoutOpenObjects(copy);
}

function withoutOpenObjects(value: unknown): JsonSchema {
  if (Array.isArray(value)) return value.map(withoutOpenObjects);
  if (value === null || typeof value !== "object") return value as JsonSchema;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, member]) => !(key === "additionalProperties" && member === true))
      .map(([key, member]) => [key, withoutOpenObjects(member)]),
  );
}

describe("sample catalog", () => {
  it("holds exactly the workflows of the example definitions", () => {
    const envs = loadCatalogFile(REPO_CATALOG);
    expect(envs.map((e) => e.name)).toEqual(["sample", "sample-staging"]);
    for (const env of envs) {
      const doc = JSON.parse(readFileSync(join(EXAMPLES, env.name, "openapi.json"), "utf8"));
      expect(emitDefinition(env, doc.servers[0].url)).toEqual(doc);
      for (const wf of env.workflows.values()) expect(wf.scenario).toBeDefined();
      const designName = BUILTIN_NAME[env.name] as string;
      const design = JSON.parse(
        readFileSync(join(DESIGN_EXAMPLES, designName, "openapi.json"), "utf8"),
      );
      // The design's examples are the same environments under the names production and staging.
      const named = asDesigned(doc);
      named.info = { ...named.info, title: design.info.title, "x-environment": designName };
      expect(named).toEqual(asDesigned(design));
    }
  });

  it("is the repo's catalog/sample.yaml with its environments named production and staging", () => {
    const workflowsOf = (text: string) => text.slice(text.indexOf("\nenvironments:\n"));
    const repo = workflowsOf(readFileSync(REPO_CATALOG, "utf8"))
      .replace(/^ {2}sample:$/m, "  production:")
      .replace(/^ {2}sample-staging:$/m, "  staging:");
    expect(workflowsOf(readFileSync(builtinCatalogPath(), "utf8"))).toBe(repo);
    expect(loadCatalogFile(builtinCatalogPath()).map((e) => e.name)).toEqual([
      "production",
      "staging",
    ]);
  });

  it("is what an emulator without a catalog loads, from its JSON copy", () => {
    expect(loadCatalogFile(builtinCatalogJsonPath())).toEqual(
      loadCatalogFile(builtinCatalogPath()),
    );
  });

  it("starts an emulator without loading the yaml library", () => {
    // A fresh process on the built package: its module cache holds only what the start loaded.
    const built = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
    expect(existsSync(built), `${built} must be built (pnpm build)`).toBe(true);
    const probe = `
      import { createRequire } from "node:module";
      const { startEmulator } = await import(${JSON.stringify(built)});
      const emulator = await startEmulator({ port: 0 });
      await emulator.close();
      const cache = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify(cache.some((file) => /[\\/]yaml[\\/]dist[\\/]/.test(file))));
    `;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", probe], {
      encoding: "utf8",
    });
    expect(JSON.parse(out)).toBe(false);
  });

  it("shows a human checkpoint, a failure and a recording among its scenarios", () => {
    const steps = loadCatalogFile(builtinCatalogPath()).flatMap((e) =>
      [...e.workflows.values()].flatMap((w) => w.scenario?.steps ?? []),
    );
    expect(steps.some((s) => "human" in s)).toBe(true);
    expect(steps.some((s) => "fail" in s)).toBe(true);
  });
});

describe("a catalog file loaded again", () => {
  it("gives each load definitions of its own: a change to one is not in the next", () => {
    const first = loadCatalogFile(builtinCatalogPath());
    const workflow = [...(first[0]?.workflows.values() ?? [])][0];
    if (!workflow) throw new Error("the sample catalog has no workflow");
    (workflow.inputs as { properties?: unknown }).properties = { changed: { type: "string" } };
    const second = loadCatalogFile(builtinCatalogPath());
    const again = second[0]?.workflows.get(workflow.id);
    expect(again?.inputs).not.toBe(workflow.inputs);
    expect(JSON.stringify(again?.inputs)).not.toContain("changed");
  });

  it("reads the file each time: a changed file is parsed again", () => {
    const dir = mkdtempSync(join(tmpdir(), "wfr-catalog-"));
    try {
      const file = join(dir, "catalog.yaml");
      const catalog = (name: string) =>
        `environments:\n  dev:\n    workflows:\n      - id: wf_a\n        name: ${name}\n        inputs: { type: object }\n`;
      writeFileSync(file, catalog("Before"));
      expect(loadCatalogFile(file)[0]?.workflows.get("wf_a")?.name).toBe("Before");
      writeFileSync(file, catalog("After"));
      expect(loadCatalogFile(file)[0]?.workflows.get("wf_a")?.name).toBe("After");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("catalog errors name what is wrong and where", () => {
  it.each([
    [{}, /environments/],
    [{ environments: { prod: { workflows: "x" } } }, /prod\.workflows/],
    [
      { environments: { prod: { workflows: [{ id: "bad id", inputs: {} }] } } },
      /workflows\[0\]\.id/,
    ],
    [{ environments: { prod: { workflows: [{ id: "wf_1" }] } } }, /workflows\[0\]\.inputs/],
    [
      { environments: { prod: { workflows: [{ id: "wf_1", inputs: {}, state: "paused" }] } } },
      /state/,
    ],
    [
      {
        environments: {
          prod: { workflows: [{ id: "wf_1", inputs: {}, scenario: { steps: [{ nap: 1 }] } }] },
        },
      },
      /scenario: steps\[0\]/,
    ],
  ])("rejects %j", (raw, message) => {
    expect(() => catalogFromObject(raw)).toThrow(CatalogError);
    expect(() => catalogFromObject(raw)).toThrow(message);
  });
});
