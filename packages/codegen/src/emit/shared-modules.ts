// The modules every environment shares are real TypeScript sources
// (src/shared-modules/*.ts), type-checked and linted with the generator;
// the build compiles them to dist/shared-modules, and `generate` copies that
// JavaScript and those declarations. Both src/emit and dist/emit sit two
// levels under the package, so one relative path finds them either way.
import { readFileSync } from "node:fs";

const COMPILED = new URL("../../dist/shared-modules/", import.meta.url);

/** The shared module names, as `_shared/<name>.js` / `.d.ts`. */
export const SHARED_MODULES = [
  "conditions",
  "formats",
  "json",
  "object-keys",
  "plain-data",
  "proto-key",
  "support",
  "value-rules",
] as const;

/** A compiled shared module without its source-map comment (the maps are not copied). */
export function sharedModuleText(
  name: (typeof SHARED_MODULES)[number],
  ext: ".js" | ".d.ts",
): string {
  const url = new URL(`${name}${ext}`, COMPILED);
  let text: string;
  try {
    text = readFileSync(url, "utf8");
  } catch {
    throw new Error(
      `@wfr/codegen is not built: ${url.pathname} is missing (run \`pnpm build\` in packages/codegen)`,
    );
  }
  // The source's own leading comment is about the generator, not the generated package.
  const body = text
    .replace(/^(?:\/\/[^\n]*\n)+/u, "")
    .replace(/\n\/\/# sourceMappingURL=\S+\s*$/u, "");
  return `${body.trimEnd()}\n`;
}
