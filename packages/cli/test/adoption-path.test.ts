// The whole adoption path in a temporary repository, through the built `wfr`
// bin and the app's own `tsc`: init -> schemas pull -> generate -> tsc ok ->
// graph edit in the emulator -> pull --check exits 4 -> pull -> generate ->
// tsc reports the error at the using line. No other build step in between.
import { execFile } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningEmulator, startEmulator } from "@wfr/emulator";
import { afterAll, beforeAll, expect, it, onTestFinished } from "vitest";
import { EXIT } from "../src/exit-codes.js";
import { catalog } from "./catalog.js";
import { adminPost, adminPut, runWfr } from "./harness.js";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
// TypeScript 7 exports no bin path: the bin sits beside its package.json.
const TSC = join(dirname(require.resolve("typescript/package.json")), "bin", "tsc");
const runtimeDir = realpathSync(resolve(here, "../node_modules/@wfr/runtime"));
const zodDir = realpathSync(resolve(here, "../../generated/node_modules/zod"));

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, catalog: structuredClone(catalog) });
});
afterAll(async () => {
  await emulator?.close();
});

function tsc(cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [TSC, "--noEmit", "-p", cwd], { cwd }, (error, stdout, stderr) => {
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr });
    });
  });
}

// The imports wfr init's closing message shows, resolved through the "#wfr/*" alias it writes.
const APP = `import { createClient } from "@wfr/runtime";
import { environment } from "#wfr/production/environment";
import { paymentApproval } from "#wfr/production/paymentApproval";

export async function approve(apiKey: string, amount: number) {
  const wfr = createClient({ environment, apiKey });
  return wfr.launch(paymentApproval, { inputs: { amount } });
}
`;

it("init -> pull -> generate -> tsc ok -> graph edit -> pull --check 4 -> pull -> generate -> tsc error at the using line", async () => {
  const repo = mkdtempSync(join(tmpdir(), "wfr-adopt-"));
  // Removes the links into the workspace's node_modules, not what they point at.
  onTestFinished(() => rmSync(repo, { recursive: true, force: true }));
  writeFileSync(
    join(repo, "package.json"),
    JSON.stringify({ name: "app", private: true, type: "module" }, null, 2),
  );
  writeFileSync(
    join(repo, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        lib: ["ES2023", "DOM"],
        types: [],
      },
      include: ["src"],
    }),
  );
  mkdirSync(join(repo, "src"));
  writeFileSync(join(repo, "src/app.ts"), APP);
  mkdirSync(join(repo, "node_modules/@wfr"), { recursive: true });
  symlinkSync(runtimeDir, join(repo, "node_modules/@wfr/runtime"));
  symlinkSync(zodDir, join(repo, "node_modules/zod"));
  const { token } = await adminPost(emulator, "/keys", {
    environment: "production",
    scopes: ["workflows:run", "runs:read"],
  });
  const env = { WFR_PRODUCTION_API_KEY: String(token) };
  const wfr = (args: string[]) => runWfr(args, { cwd: repo, env });

  const init = await wfr([
    "init",
    "--yes",
    "--env",
    "production",
    "--base-url",
    `${emulator.url}/production/api/v1`,
  ]);
  expect(init.code, init.stderr).toBe(EXIT.OK);
  const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"));
  expect(pkg.scripts["schemas:check"]).toBe("wfr schemas pull --check");
  // Generated code outside src/, reached through the import alias init wrote.
  expect(pkg.imports["#wfr/*"]).toBe("./wfr-generated/*.js");
  expect(readFileSync(join(repo, ".github/workflows/wfr.yml"), "utf8")).toContain(
    "run: npm run schemas:check",
  );
  const again = await wfr(["init", "--yes"]);
  expect(again.code).toBe(EXIT.OK);
  expect(again.stderr).toContain("nothing to write");

  const pull = await wfr(["schemas", "pull"]);
  expect(pull.code, pull.stderr).toBe(EXIT.OK);
  const gen = await wfr(["generate"]);
  expect(gen.code, gen.stderr).toBe(EXIT.OK);
  const genCheck = await wfr(["generate", "--check"]);
  expect(genCheck.code, genCheck.stderr).toBe(EXIT.OK);
  const ok = await tsc(repo);
  expect(ok.output).toBe("");
  expect(ok.code).toBe(0);

  // The graph edit: the workflow the app launches is disabled in the environment.
  await adminPut(emulator, "/environments/production/workflows/wf_approve1/state", {
    state: "disabled",
  });
  const check = await wfr(["schemas", "pull", "--check"]);
  expect(check.code, check.stderr).toBe(EXIT.DRIFT_BREAKING);
  expect(check.stdout).toContain("BREAKING");
  expect(check.stdout).toContain("Payment approval");

  const pull2 = await wfr(["schemas", "pull"]);
  expect(pull2.code, pull2.stderr).toBe(EXIT.OK);
  const stale = await wfr(["generate", "--check"]);
  expect(stale.code).toBe(EXIT.DRIFT_NON_BREAKING);
  const gen2 = await wfr(["generate"]);
  expect(gen2.code, gen2.stderr).toBe(EXIT.OK);
  const broken = await tsc(repo);
  expect(broken.code).not.toBe(0);
  // The error is reported at the using line (line 6 of src/app.ts).
  expect(broken.output).toMatch(/src\/app\.ts\(7,/);
}, 600_000);
