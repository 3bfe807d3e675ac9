// The `yaml` library is loaded the first time YAML is met (src/yaml-library.ts): a process that
// reads only JSON never pays its import. Checked in a fresh process on the built package, whose
// module cache holds only what that process loaded.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const BUILT = fileURLToPath(new URL("../dist/index.js", import.meta.url));

const probe = `
  import { createRequire } from "node:module";
  const { parseDocument, yamlLibrary } = await import(${JSON.stringify(BUILT)});
  const cache = createRequire(import.meta.url).cache;
  const yamlLoaded = () => Object.keys(cache).some((file) => /[\\\\/]yaml[\\\\/]dist[\\\\/]/.test(file));
  const seen = { atImport: yamlLoaded() };
  parseDocument('{"openapi": "3.1.0"}', "openapi.json");
  seen.afterJson = yamlLoaded();
  seen.yaml = parseDocument("openapi: 3.1.0\\n", "openapi.yaml");
  seen.afterYaml = yamlLoaded();
  seen.same = yamlLibrary() === yamlLibrary();
  console.log(JSON.stringify(seen));
`;

describe("the yaml library", () => {
  it("is loaded when YAML is first met, not for JSON", () => {
    expect(existsSync(BUILT), `${BUILT} must be built (pnpm build)`).toBe(true);
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", probe], {
      encoding: "utf8",
    });
    expect(JSON.parse(out)).toEqual({
      atImport: false,
      afterJson: false,
      yaml: { openapi: "3.1.0" },
      afterYaml: true,
      same: true,
    });
  });
});
