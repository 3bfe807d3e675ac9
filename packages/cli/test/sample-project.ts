// A temporary wfr project holding the repository's sample definition (and a copy of it in old/),
// for the commands that read definitions without an environment: generate and diff.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const EXAMPLES = resolve(fileURLToPath(import.meta.url), "../../../../schemas");
const made: string[] = [];

/** Removes every project made so far (each test file calls it in its own afterAll). */
export function removeProjects(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "wfr-codegen-cmd-"));
  made.push(dir);
  writeFileSync(
    join(dir, "wfr.config.json"),
    JSON.stringify({
      schemas: "schemas",
      generatedOut: "generated/src",
      environments: [
        { name: "sample", baseUrl: "http://127.0.0.1:9/api/v1", apiKeyEnv: "WFR_KEY" },
      ],
    }),
  );
  cpSync(join(EXAMPLES, "sample"), join(dir, "schemas", "sample"), { recursive: true });
  cpSync(join(EXAMPLES, "sample"), join(dir, "old"), { recursive: true });
  return dir;
}

export function rename(dir: string, id: string, name: string): void {
  const file = join(dir, "schemas", "sample", "openapi.json");
  const doc = JSON.parse(readFileSync(file, "utf8"));
  doc.paths[`/automations/${id}/runs`].post["x-workflow"].name = name;
  writeFileSync(file, JSON.stringify(doc, null, 2));
}
