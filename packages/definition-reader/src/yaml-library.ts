// The `yaml` library is loaded the first time YAML is met, not when a reader starts: importing it
// is about 70 modules and 0.1 CPU-seconds of a fresh Node process (`node -e 'import("yaml")'` 0.13
// against `node -e 0` 0.03, medians of ten), and most definitions are JSON. Every `wfr` command
// that read one, and every emulator, paid that at start (docs/suite-time.md, "YAML on demand").
// `require` keeps the callers synchronous; the package's CommonJS build is the same parser.
import { createRequire } from "node:module";

export type YamlLibrary = typeof import("yaml");

let loaded: YamlLibrary | undefined;

/** The `yaml` library, loaded on the first call. */
export function yamlLibrary(): YamlLibrary {
  loaded ??= createRequire(import.meta.url)("yaml") as YamlLibrary;
  return loaded;
}
