// `wfr launch <workflow>`: inputs parsed by declared type from the
// environment's committed definition; the idempotency key is printed on
// stderr BEFORE sending, so a crash can be followed by the same launch.
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { DEFINITION_FILE_NAMES } from "@wfr/protocol";
import { readEnvironmentModel, type WorkflowModel } from "../adapters/codegen.js";
import { fileInput, MAX_ATTACHMENT_BYTES, toCliError } from "../adapters/runtime.js";
import { CliError } from "../cli-error.js";
import { type ConnectionOptions, openConnection } from "../connection.js";
import { EXIT } from "../exit-codes.js";
import { fieldOf, findWorkflow, parseFieldValue, splitAssignment } from "../input-values.js";
import { terminal, writeJson } from "../terminal.js";
import { followRun } from "./runs.js";

const MIME: Record<string, string> = {
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  csv: "text/csv",
  txt: "text/plain",
  json: "application/json",
};

export function readJsonObject(flag: string, path: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new CliError(`${flag} ${path}: ${(error as Error).message}`, EXIT.USAGE);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new CliError(`${flag} ${path}: must hold a JSON object`, EXIT.INVALID_INPUT);
  return value as Record<string, unknown>;
}

export async function launchCommand(
  workflowRef: string,
  options: ConnectionOptions & {
    input?: string[];
    inputs?: string;
    file?: string[];
    metadata?: string;
    model?: string;
    idempotencyKey?: string;
    wait?: boolean;
    json?: boolean;
  },
): Promise<number> {
  const { config, env, client } = await openConnection(options);
  const model = await readEnvironmentModel(definitionFile(config, env.name));
  const workflow = findWorkflow(model.workflows, workflowRef);
  const inputs = applyInputFlags(
    workflow,
    options.inputs ? readJsonObject("--inputs", options.inputs) : {},
    options,
  );
  const metadata = options.metadata ? readJsonObject("--metadata", options.metadata) : undefined;
  return launchAndReport(client, workflow.id, inputs, metadata, options);
}

/** The environment's committed definition, or a usage error saying how to get it. */
export function definitionFile(
  config: { root: string; schemas: string },
  environment: string,
): string {
  const dir = resolve(config.root, config.schemas, environment);
  const definition = DEFINITION_FILE_NAMES.map((n) => join(dir, n)).find((f) => existsSync(f));
  if (!definition)
    throw new CliError(
      `no definition for ${environment} in ${dir} (run \`wfr schemas pull ${environment}\`)`,
      EXIT.USAGE,
    );
  return definition;
}

/** `--input name=value` (parsed by the field's declared type) and `--file name=path`, over `base`. */
export function applyInputFlags(
  workflow: WorkflowModel,
  base: Record<string, unknown>,
  options: { input?: string[]; file?: string[] },
): Record<string, unknown> {
  const inputs = { ...base };
  for (const assignment of options.input ?? []) {
    const [name, raw] = splitAssignment("--input", assignment);
    inputs[name] = parseFieldValue(fieldOf(workflow, name, "--input"), raw);
  }
  for (const assignment of options.file ?? []) {
    const [name, path] = splitAssignment("--file", assignment);
    const field = fieldOf(workflow, name, "--file");
    if (field.kind !== "file" && field.kind !== "files")
      throw new CliError(
        `--file ${name}: not a file field (declared ${field.kind})`,
        EXIT.INVALID_INPUT,
      );
    if (!existsSync(path)) throw new CliError(`--file ${name}: no such file ${path}`, EXIT.USAGE);
    // Limits checked before anything is sent (spec: one attachment at most 26,214,400 bytes).
    const size = statSync(path).size;
    if (size > MAX_ATTACHMENT_BYTES)
      throw new CliError(
        `--file ${name}: ${path} is ${size} bytes, over ${MAX_ATTACHMENT_BYTES}`,
        EXIT.TOO_LARGE,
      );
    const ext = basename(path).split(".").pop()?.toLowerCase() ?? "";
    const attachment = fileInput(new Uint8Array(readFileSync(path)), {
      filename: basename(path),
      mimeType: MIME[ext] ?? "application/octet-stream",
    });
    if (field.kind === "files") inputs[name] = [...((inputs[name] as unknown[]) ?? []), attachment];
    else inputs[name] = attachment;
  }
  return inputs;
}

/** Launches with the idempotency key printed first, then prints the run or follows it (`--wait`). */
export async function launchAndReport(
  client: Awaited<ReturnType<typeof openConnection>>["client"],
  workflowId: string,
  inputs: Record<string, unknown>,
  metadata: Record<string, unknown> | undefined,
  options: { model?: string; idempotencyKey?: string; wait?: boolean; json?: boolean },
): Promise<number> {
  const t = terminal();
  const idempotencyKey = options.idempotencyKey ?? `wfr-cli-${randomUUID()}`;
  t.stderr.write(`wfr: idempotency key: ${idempotencyKey}\n`);
  let run: Awaited<ReturnType<typeof client.launch>>;
  try {
    run = await client.launch(workflowId, {
      inputs,
      idempotencyKey,
      ...(metadata ? { metadata } : {}),
      ...(options.model ? { model: options.model as never } : {}),
    });
  } catch (error) {
    throw toCliError(error);
  }
  if (options.wait) {
    t.stderr.write(`wfr: launched ${run.run_id}\n`);
    // The live line (or NDJSON lines) go to stdout only with --json or on a terminal; the outputs follow.
    const code = await followRun(client, run.run_id, {
      json: options.json,
      timeoutSeconds: 1800,
    });
    if (code !== EXIT.OK) return code;
    let result: Awaited<ReturnType<typeof client.getResult>>;
    try {
      result = await client.getResult(run.run_id);
    } catch (error) {
      throw toCliError(error);
    }
    const outputs = (result as { outputs?: unknown }).outputs ?? {};
    if (options.json || !t.stdout.isTTY) writeJson(t, { run_id: run.run_id, outputs });
    else t.stdout.write(`outputs:\n${formatOutputs(outputs)}`);
    return EXIT.OK;
  }
  // The same thing on a terminal and in a pipe: the run id; --json gives the envelope.
  if (options.json) writeJson(t, run);
  else t.stdout.write(`${run.run_id}\n`);
  return EXIT.OK;
}

/** A run's outputs for a person: one `name: value` line each, values as JSON. */
export function formatOutputs(outputs: unknown): string {
  if (outputs === null || typeof outputs !== "object" || Array.isArray(outputs))
    return `  ${JSON.stringify(outputs)}\n`;
  return Object.entries(outputs as Record<string, unknown>)
    .map(([name, value]) => `  ${name}: ${JSON.stringify(value)}\n`)
    .join("");
}
