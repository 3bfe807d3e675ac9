// `wfr schemas pull [<env>...] [--check]`: downloads each environment's
// definition (JSON or YAML as served) into schemas/<env>/, atomically.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEFINITION_FILE, DEFINITION_FILE_NAMES } from "@wfr/protocol";
import {
  DiffDefinitionError,
  type DriftReport,
  diffDefinitionFiles,
  identifierPinFiles,
} from "../../adapters/codegen.js";
import { writeFileAtomic } from "../../atomic-write.js";
import { CliError } from "../../cli-error.js";
import {
  connectionOf,
  definitionUrlOf,
  type EnvironmentConfig,
  loadConfig,
  pickEnvironment,
} from "../../config.js";
import { formatDefinition, looksLikeJson } from "../../definition-format.js";
import { EXIT, type ExitCode } from "../../exit-codes.js";
import { wfrCommand } from "../../package-manager.js";
import { printable } from "../../printable.js";
import { terminal, writeJson } from "../../terminal.js";

export { looksLikeJson };

/**
 * The definition as committed: formatted, and naming the base URL configured for the environment
 * rather than the one it was reached at (an override, an emulator's port of the day).
 */
async function download(
  configured: EnvironmentConfig,
): Promise<{ body: string; fileName: string }> {
  const env = connectionOf(configured);
  const url = definitionUrlOf(env);
  const headers: Record<string, string> = { accept: "application/json, application/yaml" };
  const key = process.env[env.apiKeyEnv]?.trim();
  if (key) headers.authorization = `Bearer ${key}`;
  let response: Response;
  try {
    response = await fetch(url, { headers });
  } catch (error) {
    throw new CliError(
      `${env.name}: download of ${url} failed: ${(error as Error).message}`,
      EXIT.NETWORK,
    );
  }
  if (!response.ok)
    throw new CliError(
      `${env.name}: download of ${url} failed: HTTP ${response.status}`,
      response.status === 401 || response.status === 403 ? EXIT.AUTH : EXIT.ERROR,
    );
  const body = await response.text();
  const type = response.headers.get("content-type") ?? "";
  const json = type.includes("json") || (!type.includes("yaml") && looksLikeJson(body));
  return {
    body: formatDefinition(body, { json, baseUrl: configured.baseUrl }),
    fileName: json ? DEFINITION_FILE.json : DEFINITION_FILE.yaml,
  };
}

export async function schemasPullCommand(
  envNames: string[],
  options: { check?: boolean; json?: boolean; config?: string },
): Promise<number> {
  const t = terminal();
  const config = loadConfig(process.cwd(), options.config);
  const envs =
    envNames.length > 0 ? envNames.map((n) => pickEnvironment(config, n)) : config.environments;
  if (envs.length === 0) throw new CliError("no environments in the config file", EXIT.USAGE);
  let worst: ExitCode = EXIT.OK;
  const reports: Record<string, DriftReport | { missing: true }> = {};
  for (const env of envs) {
    const { body, fileName } = await download(env);
    const dir = resolve(config.root, config.schemas, env.name);
    if (!options.check) {
      writeFileAtomic(join(dir, fileName), body);
      // A definition served in the other format replaces the old file.
      for (const other of DEFINITION_FILE_NAMES)
        if (other !== fileName) rmSync(join(dir, other), { force: true });
      t.stderr.write(`wfr: ${env.name}: wrote ${join(config.schemas, env.name, fileName)}\n`);
      continue;
    }
    const committed = DEFINITION_FILE_NAMES.map((n) => join(dir, n)).find((f) => existsSync(f));
    if (committed === undefined) {
      t.stderr.write(
        `wfr: ${env.name}: no committed definition in ${join(config.schemas, env.name)}\n`,
      );
      reports[env.name] = { missing: true };
      worst = EXIT.DRIFT_BREAKING;
      continue;
    }
    if (readFileSync(committed, "utf8") === body) {
      t.stderr.write(`wfr: ${env.name}: up to date\n`);
      reports[env.name] = { changes: [], summary: { breaking: 0, nonBreaking: 0 } };
      continue;
    }
    const tmp = mkdtempSync(join(tmpdir(), "wfr-pull-"));
    let report: DriftReport;
    try {
      const downloadedDir = join(tmp, env.name);
      writeFileAtomic(join(downloadedDir, fileName), body);
      report = await diffDefinitionFiles(
        committed,
        join(downloadedDir, fileName),
        identifierPinFiles(config.root, config.generatedOut),
      );
    } catch (error) {
      if (error instanceof DiffDefinitionError)
        throw new CliError(`${env.name}: ${error.message}`, EXIT.ERROR);
      throw error;
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    reports[env.name] = report;
    const code: ExitCode =
      report.summary.breaking > 0 ? EXIT.DRIFT_BREAKING : EXIT.DRIFT_NON_BREAKING; // bytes differ even when no change is classified
    if (code > worst) worst = code;
    if (!options.json) {
      t.stdout.write(
        `${env.name}: ${report.summary.breaking} breaking, ${report.summary.nonBreaking} non-breaking change(s)\n`,
      );
      for (const c of report.changes)
        t.stdout.write(
          `  ${c.severity === "breaking" ? "BREAKING    " : "non-breaking"} ${printable(c.workflowName)}: ${printable(c.message)}\n`,
        );
    }
  }
  if (options.check && options.json) writeJson(t, reports);
  if (options.check && worst !== EXIT.OK)
    t.stderr.write(
      `wfr: schemas differ from the environments (run \`${wfrCommand(config.root, "schemas pull")}\`)\n`,
    );
  return worst;
}
