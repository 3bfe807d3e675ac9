// Generated file and symbol names live in their own namespace: a workflow named "Index" or "Download" and an environment named
// `support` or `json` cannot replace or shadow generated modules or exports.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import { baseIdentifier, isValidAlias } from "../../src/identifiers.js";
import { cleanupTempDirs, definition, projectDir, typeCheck, writeJson } from "../helpers.js";

afterAll(cleanupTempDirs);

describe("reserved names", () => {
  for (const [name, expected] of [
    ["Index", "indexWorkflow"],
    ["INDEX", "indexWorkflow"],
    ["Download", "downloadWorkflow"],
    ["Environment", "environmentWorkflow"],
    ["Workflows", "workflowsWorkflow"],
  ] as const) {
    it(`${JSON.stringify(name)} -> ${expected}, and the bare name is no valid alias`, () => {
      expect(baseIdentifier(name)).toBe(expected);
      expect(isValidAlias(expected.replace(/Workflow$/, ""))).toBe(false);
    });
  }

  it("workflows named Index and Download in environments named support and json keep index, download and the shared modules", async () => {
    const dir = projectDir();
    const workflows = [
      { id: "wf_index", name: "Index" },
      { id: "wf_download", name: "Download" },
      { id: "wf_other", name: "Other" },
    ];
    for (const env of ["support", "json"])
      writeJson(
        join(dir, "schemas", env, "openapi.json"),
        definition(workflows, { environment: env }),
      );
    const { files } = generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
    expect([...files.keys()]).toContain("_shared/support.js");
    expect([...files.keys()]).toContain("support/index.js");
    expect([...files.keys()]).toContain("support/indexWorkflow.js");
    expect(files.get("_shared/support.js")).toContain("class InvalidInputsError");

    const app = [
      `import { environment, workflows } from "./gen/support.js";`,
      `import * as json from "./gen/json.js";`,
      `import { download, downloadWorkflow } from "./gen/support/downloadWorkflow.js";`,
      `export const a: "support" = environment.name;`,
      `export const b: "json" = json.environment.name;`,
      `export const c: "wf_index" = workflows.indexWorkflow.id;`,
      `export const d: "wf_download" = downloadWorkflow.id;`,
      "export const e: typeof download = download;",
      `export const f: "wf_other" = workflows.other.id;`,
    ].join("\n");
    writeFileSync(join(dir, "app.ts"), app);
    expect(typeCheck(dir, ["app.ts"])).toEqual([]);

    const mod = (await import(pathToFileURL(join(dir, "gen", "support.js")).href)) as {
      environment: { name: string };
      workflows: Record<string, { id: string }>;
    };
    expect(mod.environment.name).toBe("support");
    expect(Object.keys(mod.workflows)).toEqual(["downloadWorkflow", "indexWorkflow", "other"]);
  }, 120_000);
});
