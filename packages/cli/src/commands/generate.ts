import { resolve } from "node:path";
import { runDiff, runGenerate } from "../adapters/codegen.js";
import { loadConfig } from "../config.js";
import { EXIT } from "../exit-codes.js";

export async function generateCommand(options: {
  check?: boolean;
  config?: string;
}): Promise<number> {
  const config = loadConfig(process.cwd(), options.config);
  const code = await runGenerate(
    { stdout: process.stdout, stderr: process.stderr, cwd: config.root },
    {
      schemas: resolve(config.root, config.schemas),
      out: resolve(config.root, config.generatedOut),
      check: options.check === true,
    },
  );
  // codegen answers 1 for stale output under --check; wfr keeps 3 for "drift".
  if (options.check && code === 1) return EXIT.DRIFT_NON_BREAKING;
  return code;
}

export async function diffCommand(
  oldRef: string,
  newRef: string,
  options: { format: string; failOn: string },
): Promise<number> {
  const code = await runDiff(
    [oldRef, newRef, "--format", options.format, "--fail-on", options.failOn],
    process.cwd(),
  );
  return code === 1 ? EXIT.DRIFT_BREAKING : code;
}
