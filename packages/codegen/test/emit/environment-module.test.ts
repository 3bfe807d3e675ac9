// `<env>/environment.js`: the environment in a module of its own, so that an app that uses one
// workflow (`#wfr/<env>/environment` + `#wfr/<env>/<workflow>`) loads neither the index nor any
// other workflow's module (what that costs an app: docs/benchmarks.md, case `type-check`).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import { baseIdentifier } from "../../src/identifiers.js";
import { cleanupTempDirs, definition, projectDir, typeCheck, writeJson } from "../helpers.js";

afterAll(cleanupTempDirs);

const WORKFLOWS = [
  { id: "wf_one", name: "One" },
  { id: "wf_two", name: "Two" },
  { id: "wf_three", name: "Three" },
];

function generated() {
  const dir = projectDir();
  writeJson(
    join(dir, "schemas", "prod", "openapi.json"),
    definition(WORKFLOWS, { environment: "prod" }),
  );
  const { files } = generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
  return { dir, files };
}

/** The files of the environment `prod` a `tsc` program over `root` reads, relative to the output folder. */
function generatedFilesRead(dir: string, root: string): string[] {
  const program = ts.createProgram({
    rootNames: [join(dir, root)],
    options: {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    },
  });
  const gen = join(dir, "gen");
  return program
    .getSourceFiles()
    .map((f) => f.fileName)
    .filter((f) => f.startsWith(join(gen, "prod")))
    .map((f) => f.slice(gen.length + 1))
    .sort();
}

describe("the environment module", () => {
  it("is emitted per environment, importing only the shared support module", () => {
    const { files } = generated();
    const js = files.get("prod/environment.js") ?? "";
    const dts = files.get("prod/environment.d.ts") ?? "";
    expect(js).toContain("export const environment = Object.freeze({");
    expect(dts).toContain("export declare const environment: {");
    expect(js.match(/^import .*$/gm)).toEqual([
      'import { runTimeBaseUrl as runTimeBaseUrl$ } from "../_shared/support.js";',
    ]);
    expect(dts).not.toMatch(/^import /m);
    // The index re-exports it instead of declaring a second environment.
    expect(files.get("prod/index.js")).toContain('export { environment } from "./environment.js";');
    expect(files.get("prod/index.d.ts")).toContain(
      'export { environment } from "./environment.js";',
    );
  });

  it("with one workflow's module, an app's tsc reads no other workflow and not the index", () => {
    const { dir } = generated();
    writeFileSync(
      join(dir, "app.ts"),
      [
        `import { environment } from "./gen/prod/environment.js";`,
        `import { one } from "./gen/prod/one.js";`,
        `export const name: "prod" = environment.name;`,
        `export const id: "wf_one" = one.id;`,
      ].join("\n"),
    );
    expect(typeCheck(dir, ["app.ts"])).toEqual([]);
    expect(generatedFilesRead(dir, "app.ts")).toEqual([
      "prod/environment.d.ts",
      "prod/one.d.ts",
      "prod/one.types.d.ts",
    ]);
  }, 60_000);

  it("exports the same object as the index, with the definition's base URL", async () => {
    const { dir } = generated();
    const own = (await import(pathToFileURL(join(dir, "gen", "prod", "environment.js")).href)) as {
      environment: { name: string; baseUrl: string };
    };
    const index = (await import(pathToFileURL(join(dir, "gen", "prod.js")).href)) as {
      environment: unknown;
    };
    expect(index.environment).toBe(own.environment);
    expect(own.environment.name).toBe("prod");
    expect(own.environment.baseUrl).toMatch(/^https?:\/\//);
  });

  it("keeps its file name: a workflow named Environment, in any case, gets another identifier", () => {
    expect(baseIdentifier("Environment")).toBe("environmentWorkflow");
    // A case-folding file system would make enVironment.js and environment.js one file.
    expect(baseIdentifier("en Vironment")).toBe("enVironmentWorkflow");
    const dir = projectDir();
    writeJson(
      join(dir, "schemas", "prod", "openapi.json"),
      definition([{ id: "wf_env", name: "en Vironment" }], { environment: "prod" }),
    );
    const { files } = generate({ schemas: join(dir, "schemas"), out: join(dir, "gen") });
    expect([...files.keys()].filter((p) => /^prod\/environment\./i.test(p))).toEqual([
      "prod/environment.d.ts",
      "prod/environment.js",
    ]);
    expect(files.get("prod/environment.js")).toContain("export const environment =");
    expect(files.has("prod/enVironmentWorkflow.js")).toBe(true);
  });
});
