// The served definition judged by clients that tools nobody here wrote generate from it, with
// their default flags: openapi-typescript + openapi-fetch, hey-api and orval (pinned devDependencies).
// Each app type-checks under TypeScript 7 (the workspace's: npm's `latest`) with `strict` and
// otherwise default options, is bundled by esbuild and runs the flow through Prism in front of
// the emulator (a validating proxy: any answer the definition does not declare is a violation),
// handling a `429` on launch through the client's own types (docs/definition-format.md, "What the
// emulator's definitions state beyond the design's examples").
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APPS, type Generator, launchBody } from "./generated-clients/apps.js";
import { type PrismProxy, startPrism } from "./prism.js";
import { Harness, invoiceBody } from "./support.js";

const PACKAGE = fileURLToPath(new URL("../..", import.meta.url));
const bin = (name: string) => join(PACKAGE, "node_modules", ".bin", name);
/** The workspace's TypeScript (7), as an app installing `typescript` gets it. */
const TSC = join(
  dirname(
    createRequire(join(PACKAGE, "..", "..", "package.json")).resolve("typescript/package.json"),
  ),
  "bin",
  "tsc",
);

function run(file: string, args: readonly string[], cwd: string, env: Record<string, string> = {}) {
  return new Promise<{ code: number; output: string; stdout: string }>((resolve) => {
    execFile(
      file,
      args,
      { cwd, env: { ...process.env, NO_COLOR: "1", ...env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}`, stdout: String(stdout) });
      },
    );
  });
}

let h: Harness;
let prism: PrismProxy;
let work: string;
let definitionFile: string;
let apiKey: string;

beforeAll(async () => {
  h = await Harness.start();
  work = mkdtempSync(join(tmpdir(), "wfr-generated-clients-"));
  definitionFile = join(work, "openapi.json");
  const served = await fetch(`${h.url}/production/api-docs/openapi.json`);
  writeFileSync(definitionFile, await served.text());
  prism = await startPrism(definitionFile, h.base("production"), true);
  apiKey = await h.key();
}, 120_000);

afterAll(async () => {
  prism?.child.kill();
  await h?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Writes the generator's client into `dir`, as its README's quick start does. */
async function generate(generator: Generator, dir: string): Promise<void> {
  const generated =
    generator === "openapi-fetch"
      ? await run(bin("openapi-typescript"), [definitionFile, "-o", "schema.d.ts"], dir)
      : generator === "hey-api"
        ? await run(bin("openapi-ts"), ["-i", definitionFile, "-o", "hey"], dir)
        : await (async () => {
            writeFileSync(
              join(dir, "orval.config.cjs"),
              `module.exports = ${JSON.stringify({
                api: {
                  input: { target: definitionFile },
                  output: { target: "./orval/api.ts", client: "fetch", baseUrl: prism.url },
                },
              })};\n`,
            );
            return run(bin("orval"), ["--config", "orval.config.cjs"], dir);
          })();
  expect(generated.code, generated.output).toBe(0);
  if (generator === "openapi-fetch") {
    mkdirSync(join(dir, "node_modules"), { recursive: true });
    symlinkSync(
      join(PACKAGE, "node_modules", "openapi-fetch"),
      join(dir, "node_modules", "openapi-fetch"),
    );
  }
}

const GENERATORS = Object.keys(APPS) as Generator[];

/**
 * Each generator's app written beside its client (`<generator>/app.ts`), then the three apps
 * type-checked as one tsc program: they are modules that share only TypeScript's libs, so each
 * file's errors are what a program of its own reports, and the libs (`dom` among them) are read
 * and checked once instead of three times (about 1 CPU-second each). Each test reads its own
 * app's lines of the output.
 */
let tscOutput: Map<Generator | "elsewhere", string>;
let tscCode = -1;

beforeAll(async () => {
  const apps: string[] = [];
  for (const generator of GENERATORS) {
    const dir = join(work, generator);
    mkdirSync(dir, { recursive: true });
    await generate(generator, dir);
    // Every input given, the defaulted ones too: openapi-typescript's default flags type a
    // field with a default as required (`defaultNonNullable`), in request bodies as well.
    const body = invoiceBody({ metadata: { order_ref: "PO-1" } });
    Object.assign(body.inputs, { currency: "EUR", paid: false });
    writeFileSync(join(dir, "app.ts"), APPS[generator](launchBody(body)));
    apps.push(`${generator}/app.ts`);
  }
  writeFileSync(
    join(work, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: "es2022",
        module: "preserve",
        moduleResolution: "bundler",
        lib: ["es2023", "dom"],
        types: [],
        noEmit: true,
      },
      files: apps,
    }),
  );
  const checked = await run(TSC, ["-p", "tsconfig.json", "--pretty", "false"], work);
  tscCode = checked.code;
  // `<generator>/<file>(line,col): error ...`, then its indented continuation lines.
  tscOutput = new Map();
  let owner: Generator | "elsewhere" = "elsewhere";
  for (const line of checked.output.split("\n")) {
    if (line === "") continue;
    if (!/^\s/.test(line))
      owner = GENERATORS.find((generator) => line.startsWith(`${generator}/`)) ?? "elsewhere";
    tscOutput.set(owner, `${tscOutput.get(owner) ?? ""}${line}\n`);
  }
}, 300_000);

describe("clients generated from the served definition by other tools", () => {
  for (const generator of GENERATORS) {
    it(`${generator}: compiles under strict TypeScript 7 and runs the flow through a validating proxy, a 429 on launch handled through its types`, async () => {
      const dir = join(work, generator);
      expect(tscOutput.get(generator) ?? "").toBe("");
      expect(tscOutput.get("elsewhere") ?? "").toBe("");
      expect(tscCode).toBe(0);
      const bundled = await run(
        bin("esbuild"),
        [
          "app.ts",
          "--bundle",
          "--platform=node",
          "--format=esm",
          "--outfile=app.mjs",
          "--log-level=warning",
        ],
        dir,
      );
      expect(bundled.code, bundled.output).toBe(0);

      const armed = await h.admin("POST", "/api-faults", {
        route: "POST /automations/*/runs",
        fault: "status",
        status: 429,
        count: 1,
      });
      expect(armed.status, armed.text).toBe(201);
      const ran = await run(process.execPath, ["app.mjs"], dir, {
        BASE_URL: prism.url,
        API_KEY: apiKey,
        CLIENT: generator,
      });
      expect(ran.code, ran.output).toBe(0);
      const seen = JSON.parse(ran.stdout.trim().split("\n").at(-1) ?? "{}");
      expect(seen.violations).toEqual([]);
      expect(seen.rateLimited).toEqual({ code: "INJECTED", retryAfter: "1" });
      expect(seen.steps.map((s: { op: string }) => s.op)).toEqual([
        "launch",
        "launch",
        "getRun",
        "getRunResult",
        "getRunEvents",
      ]);
      expect(seen.steps.map((s: { status: number }) => s.status)).toEqual([
        429, 202, 200, 202, 200,
      ]);
      expect(seen.metadata).toEqual({ order_ref: "PO-1" });
    }, 180_000);
  }
});
