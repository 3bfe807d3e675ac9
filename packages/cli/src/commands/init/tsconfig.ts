// The tsconfig.json `wfr init` writes where there is none, and what it says about one that exists.
//
// One file for an ES module and a CommonJS package alike: `module: nodenext` emits each file as
// its package's `type` says and resolves the `#wfr/*` import alias through package.json
// `imports`. Every option a TypeScript version defaults differently is set: TypeScript 7 removed
// `moduleResolution: node10` (TypeScript 5's default for CommonJS, which cannot resolve `#wfr/*`),
// defaults `types` to [] (no `process`) and `rootDir` to the config's folder (dist/src/app.js).
// `skipLibCheck` keeps its default (false): the generated declarations type-check as they are.
// No `verbatimModuleSyntax`: in a CommonJS package it rejects every `import` (TS1295).

export const TSCONFIG_FILE = "tsconfig.json";

export const TSCONFIG_TEXT = `{
  "compilerOptions": {
    "rootDir": "src",
    "outDir": "dist",
    "module": "nodenext",
    "target": "es2022",
    "strict": true,
    "types": ["node"]
  },
  "include": ["src"]
}
`;

/** Module settings under which `#wfr/*` resolves and the emitted module format matches the package's. */
const NODE_MODULES = new Set(["node16", "node18", "node20", "nodenext"]);

/**
 * What an existing tsconfig.json lacks for wfr's generated code, one line per option, or an empty
 * list. Read tolerantly (comments, trailing commas); an `extends` may hold what is missing here,
 * so then the lines say that they may be inherited instead of guessing.
 */
export function tsconfigAdvice(text: string): string[] {
  let config: { extends?: unknown; compilerOptions?: Record<string, unknown> };
  try {
    config = JSON.parse(stripJsonComments(text)) as typeof config;
  } catch (error) {
    return [
      `${TSCONFIG_FILE} could not be read (${(error as Error).message}); it needs "module": "nodenext" and "types": ["node"]`,
    ];
  }
  const options = config.compilerOptions ?? {};
  const lower = (value: unknown) => (typeof value === "string" ? value.toLowerCase() : undefined);
  const missing: string[] = [];
  const moduleSetting = lower(options.module);
  const resolution = lower(options.moduleResolution);
  if (!(moduleSetting !== undefined && NODE_MODULES.has(moduleSetting)) && resolution !== "bundler")
    missing.push(
      `"module": "nodenext" (or "node16"; or "moduleResolution": "bundler" where a bundler builds the app) so that the #wfr/* import alias resolves (now ${describe(options.module, options.moduleResolution)})`,
    );
  const types = options.types;
  if (!(Array.isArray(types) && types.includes("node")))
    missing.push(
      `"types" including "node" (TypeScript 7 defaults "types" to []; now ${types === undefined ? "not set" : JSON.stringify(types)})`,
    );
  if (missing.length === 0) return [];
  const inherited =
    config.extends === undefined
      ? ""
      : ` unless ${JSON.stringify(config.extends)} (its "extends") sets it: wfr does not read that file`;
  return missing.map((line) => `${TSCONFIG_FILE} needs ${line}${inherited}`);
}

function describe(moduleSetting: unknown, resolution: unknown): string {
  const parts = [
    moduleSetting === undefined ? '"module" not set' : `"module": ${JSON.stringify(moduleSetting)}`,
    ...(resolution === undefined ? [] : [`"moduleResolution": ${JSON.stringify(resolution)}`]),
  ];
  return parts.join(", ");
}

/** JSON with comments and trailing commas (tsconfig's own dialect) as plain JSON. */
export function stripJsonComments(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end === -1 ? text.length : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  return removeTrailingCommas(out);
}

/** Drops a comma that only whitespace separates from a closing bracket, outside strings. */
function removeTrailingCommas(json: string): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i] as string;
    if (inString) {
      out += c;
      if (c === "\\") out += json[++i] ?? "";
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    if (c === ",") {
      let j = i + 1;
      while (j < json.length && /\s/.test(json[j] as string)) j++;
      if (json[j] === "}" || json[j] === "]") continue;
    }
    out += c;
  }
  return out;
}
