// `pnpm demo`: the whole loop, offline, start to finish. The emulator starts
// on a free port, production's definition is downloaded from it, code is
// generated from that download, the app (src/invoice-demo.ts) is
// type-checked against the freshly generated code and run: a launch through
// the generated types, each of its two human checkpoints answered once, the
// typed result printed. Everything is shut down and removed at the end.
import { spawn } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { generate } from "@wfr/codegen";
import { startEmulator } from "@wfr/emulator";
import { build } from "esbuild";
import { ENVIRONMENT, prepareEmulator } from "./demo-scenario.js";

const demoRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const appSource = join(demoRoot, "src", "invoice-demo.ts");
const log = (line: string) => process.stdout.write(`${line}\n`);

/**
 * Type-checks the app with `@wfr/generated/<env>/...` pointing at the freshly generated code, with the
 * `tsc` a team runs (TypeScript 7's native compiler: a process, not an API).
 */
async function typeCheckApp(work: string, generatedDir: string): Promise<void> {
  const tsconfig = join(work, "tsconfig.json");
  await writeFile(
    tsconfig,
    JSON.stringify({
      compilerOptions: {
        target: "es2022",
        module: "nodenext",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ["node"],
        paths: {
          [`@wfr/generated/${ENVIRONMENT}/*`]: [join(generatedDir, ENVIRONMENT, "*.d.ts")],
        },
      },
      files: [appSource],
    }),
  );
  const typescript = dirname(createRequire(import.meta.url).resolve("typescript/package.json"));
  const { code, output } = await new Promise<{ code: number | null; output: string }>(
    (done, reject) => {
      const child = spawn(process.execPath, [join(typescript, "bin", "tsc"), "-p", tsconfig], {
        cwd: demoRoot,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let text = "";
      child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.on("error", reject);
      child.on("close", (exit) => done({ code: exit, output: text }));
    },
  );
  if (code !== 0)
    throw new Error(`the app does not type-check against the downloaded definition:\n${output}`);
}

async function main(): Promise<void> {
  // Inside the app folder so that generated imports of @wfr/runtime and zod resolve.
  const work = join(demoRoot, ".work");
  await rm(work, { recursive: true, force: true });
  const emulator = await startEmulator({ port: 0, host: "127.0.0.1", clock: "real" });
  try {
    log(`emulator listening at ${emulator.url}`);
    const token = await prepareEmulator(emulator.url);
    const definitionUrl = `${emulator.url}/${ENVIRONMENT}/api-docs/openapi.json`;
    const definition = await fetch(definitionUrl);
    if (!definition.ok) throw new Error(`downloading ${definitionUrl}: HTTP ${definition.status}`);
    const schemasDir = join(work, "schemas");
    await mkdir(join(schemasDir, ENVIRONMENT), { recursive: true });
    await writeFile(join(schemasDir, ENVIRONMENT, "openapi.json"), await definition.text());
    log(`downloaded ${definitionUrl}`);

    const generatedDir = join(work, "generated");
    const { models, files } = generate({ schemas: schemasDir, out: generatedDir });
    const workflowCount = models.reduce((n, m) => n + m.workflows.length, 0);
    log(`generated ${files.size} files for ${workflowCount} workflows`);

    await typeCheckApp(work, generatedDir);
    log("the app type-checks against the generated code");

    const bundle = join(work, "invoice-demo.mjs");
    await build({
      entryPoints: [appSource],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile: bundle,
      logLevel: "error",
      // esbuild's alias maps a package's subpaths too: `@wfr/generated/<env>/invoiceIntake`.
      alias: { [`@wfr/generated/${ENVIRONMENT}`]: join(generatedDir, ENVIRONMENT) },
    });
    const app = (await import(pathToFileURL(bundle).href)) as typeof import("./invoice-demo.js");
    const { outputs } = await app.runInvoiceDemo({
      baseUrl: `${emulator.url}/${ENVIRONMENT}/api/v1`,
      apiKey: token,
      log,
    });
    log(`typed outputs: ${JSON.stringify(outputs)}`);
  } finally {
    await emulator.close();
    await rm(work, { recursive: true, force: true });
    log("emulator stopped; temporary files removed");
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
