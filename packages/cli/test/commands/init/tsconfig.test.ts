// What `wfr init` says about a tsconfig.json it leaves alone: read as tsc reads it (comments,
// trailing commas), each missing option named, and an `extends` it cannot see through said so.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  stripJsonComments,
  TSCONFIG_TEXT,
  tsconfigAdvice,
} from "../../../src/commands/init/tsconfig.js";

const require = createRequire(import.meta.url);
// TypeScript 7 exports no bin path: the bin sits beside its package.json.
const TSC = join(dirname(require.resolve("typescript/package.json")), "bin", "tsc");
const TYPES_NODE = realpathSync(dirname(require.resolve("@types/node/package.json")));

/**
 * A project as `npm init -y` and `wfr init` leave it: the package type given, the #wfr/* alias to
 * an ES module with its declarations (as generated code is), an app that reads process.env. Built
 * with the workspace's TypeScript; by hand also with TypeScript 7 (packages/cli/README.md).
 */
function project(type: "module" | "commonjs"): string {
  const dir = mkdtempSync(join(tmpdir(), `wfr-tsconfig-${type}-`));
  // Removes the link to @types/node, not the package it points at.
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "app", type, imports: { "#wfr/*": "./wfr-generated/*.js" } }),
  );
  writeFileSync(join(dir, "tsconfig.json"), TSCONFIG_TEXT);
  mkdirSync(join(dir, "wfr-generated"));
  // As generated: ES modules whatever the app's package type is.
  writeFileSync(join(dir, "wfr-generated/package.json"), '{ "type": "module" }\n');
  writeFileSync(
    join(dir, "wfr-generated/production.js"),
    'export const environment = { name: "production" };\n',
  );
  writeFileSync(
    join(dir, "wfr-generated/production.d.ts"),
    "export declare const environment: { readonly name: string };\n",
  );
  mkdirSync(join(dir, "node_modules/@types"), { recursive: true });
  symlinkSync(TYPES_NODE, join(dir, "node_modules/@types/node"));
  mkdirSync(join(dir, "src"));
  writeFileSync(
    join(dir, "src/app.ts"),
    'import { environment } from "#wfr/production";\n\nconsole.log(environment.name, process.env.WFR_GREETING);\n',
  );
  return dir;
}

describe("the tsconfig.json wfr init writes", () => {
  for (const type of ["module", "commonjs"] as const)
    it(`builds src/ to dist/ in a${type === "module" ? "n ES module" : " CommonJS"} package, and the build runs`, () => {
      const dir = project(type);
      execFileSync(process.execPath, [TSC, "-p", dir], { cwd: dir, encoding: "utf8" });
      const ran = execFileSync(process.execPath, [join(dir, "dist/app.js")], {
        cwd: dir,
        encoding: "utf8",
        env: { ...process.env, WFR_GREETING: "hello" },
      });
      expect(ran).toBe("production hello\n");
    });
});

describe("tsconfigAdvice", () => {
  it("nothing to say where module is a Node mode (or resolution is bundler) and types has node", () => {
    for (const options of [
      { module: "NodeNext", types: ["node"] },
      { module: "node16", types: ["node", "vitest/globals"] },
      { module: "esnext", moduleResolution: "Bundler", types: ["node"] },
    ])
      expect(tsconfigAdvice(JSON.stringify({ compilerOptions: options }))).toEqual([]);
  });

  it("a missing module and types are each named, with what is there now", () => {
    const advice = tsconfigAdvice('{ "compilerOptions": { "strict": true, "types": [] } }');
    expect(advice).toHaveLength(2);
    expect(advice[0]).toContain('"module": "nodenext"');
    expect(advice[0]).toContain('(now "module" not set)');
    expect(advice[1]).toContain('"types" including "node"');
    expect(advice[1]).toContain("now []");
  });

  it("node10 resolution (TypeScript 5's CommonJS default, removed in 7) is named", () => {
    const advice = tsconfigAdvice(
      '{ "compilerOptions": { "module": "commonjs", "moduleResolution": "node10", "types": ["node"] } }',
    );
    expect(advice).toEqual([expect.stringContaining('"moduleResolution": "node10"')]);
  });

  it("with extends: says the option may be inherited rather than guessing", () => {
    const advice = tsconfigAdvice('{ "extends": "@tsconfig/node22/tsconfig.json" }');
    expect(advice).toHaveLength(2);
    for (const line of advice)
      expect(line).toContain(
        'unless "@tsconfig/node22/tsconfig.json" (its "extends") sets it: wfr does not read that file',
      );
  });

  it("a file that is not JSON even with comments removed is named, with what it needs", () => {
    expect(tsconfigAdvice("{ compilerOptions: }")).toEqual([
      expect.stringMatching(
        /^tsconfig\.json could not be read \(.+\); it needs "module": "nodenext" and "types": \["node"\]$/,
      ),
    ]);
  });
});

describe("stripJsonComments", () => {
  it("drops line and block comments and trailing commas, and keeps them inside strings", () => {
    const text = `{
  // a comment
  "a": "http://x/*y*/", /* block */
  "b": ["a,]", "c\\"//",],
}`;
    expect(JSON.parse(stripJsonComments(text))).toEqual({ a: "http://x/*y*/", b: ["a,]", 'c"//'] });
  });
});
