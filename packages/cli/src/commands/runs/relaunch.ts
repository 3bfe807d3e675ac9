// `wfr runs relaunch <runId>`: the same workflow launched again, as a new intended execution (a new
// idempotency key), with the recorded inputs and any edits. The service does not give back a run's
// inputs, so they come from where the caller has them: `--inputs <file.json>` (for example from
// the caller's own launch journal), or the emulator's run history when the environment is the
// emulator. Attachment bytes are never given back: each file input needs `--file` again.

import { readEnvironmentModel } from "../../adapters/codegen.js";
import { toCliError } from "../../adapters/runtime.js";
import { CliError } from "../../cli-error.js";
import { type ConnectionOptions, openConnection } from "../../connection.js";
import { EXIT } from "../../exit-codes.js";
import { findWorkflow } from "../../input-values.js";
import { printable } from "../../printable.js";
import { applyInputFlags, definitionFile, readJsonObject } from "../launch/inputs.js";
import { launchAndReport } from "../launch/launch-and-report.js";

interface RelaunchOptions extends ConnectionOptions {
  input?: string[];
  inputs?: string;
  file?: string[];
  metadata?: string;
  model?: string;
  idempotencyKey?: string;
  wait?: boolean;
  json?: boolean;
}

/** The inputs the emulator recorded for the run (its admin run history), or null when it is not the emulator. */
export async function emulatorRecordedInputs(
  baseUrl: string,
  environment: string,
  runId: string,
): Promise<Record<string, unknown> | null> {
  let origin: string;
  try {
    origin = new URL(baseUrl).origin;
  } catch {
    return null;
  }
  try {
    const answer = await fetch(
      `${origin}/_emulator/environments/${encodeURIComponent(environment)}/runs/${encodeURIComponent(runId)}`,
      { headers: { accept: "application/json" }, redirect: "error" },
    );
    if (!answer.ok) return null;
    const history = (await answer.json()) as { inputs?: unknown };
    return history.inputs !== null &&
      typeof history.inputs === "object" &&
      !Array.isArray(history.inputs)
      ? (history.inputs as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

const isAttachmentReference = (value: unknown): boolean =>
  value !== null && typeof value === "object" && "attachment_id" in (value as object);

export async function relaunchCommand(runId: string, options: RelaunchOptions): Promise<number> {
  const { config, env, client } = await openConnection(options);
  let original: Awaited<ReturnType<typeof client.getRun>>;
  try {
    original = await client.getRun(runId);
  } catch (error) {
    throw toCliError(error);
  }
  const model = await readEnvironmentModel(definitionFile(config, env.name));
  const workflow = findWorkflow(model.workflows, original.workflow_id);
  const recorded = options.inputs
    ? readJsonObject("--inputs", options.inputs)
    : await emulatorRecordedInputs(env.baseUrl, env.name, runId);
  if (!recorded)
    throw new CliError(
      `${env.name} does not give back the inputs of ${runId} (only the emulator's run history does): pass them with --inputs <file.json>, for example from your launch journal`,
      EXIT.USAGE,
    );
  const inputs = applyInputFlags(workflow, recorded, options);
  const needFiles = workflow.inputs
    .filter((field) => {
      const value = inputs[field.name];
      return Array.isArray(value)
        ? value.some(isAttachmentReference)
        : isAttachmentReference(value);
    })
    .map((field) => field.name);
  if (needFiles.length > 0)
    throw new CliError(
      `the service does not give back attachment bytes: give ${needFiles.map((n) => `--file ${n}=<path>`).join(" ")}`,
      EXIT.USAGE,
    );
  const metadata = options.metadata
    ? readJsonObject("--metadata", options.metadata)
    : (original.metadata as Record<string, unknown>);
  const chosenModel =
    options.model ??
    (workflow.modelExposed && typeof original.model === "string" ? original.model : undefined);
  process.stderr.write(`wfr: relaunching ${runId} (${printable(workflow.name)}) as a new run\n`);
  return launchAndReport(client, workflow.id, inputs, metadata, {
    ...options,
    ...(chosenModel ? { model: chosenModel } : {}),
  });
}
