// `wfr launch <workflow>`: inputs parsed by declared type from the
// environment's committed definition; the idempotency key is printed on
// stderr BEFORE sending, so a crash can be followed by the same launch.
import { readEnvironmentModel } from "../../adapters/codegen.js";
import { type ConnectionOptions, openConnection } from "../../connection.js";
import { findWorkflow } from "../../input-values.js";
import { applyInputFlags, definitionFile, readJsonObject } from "./inputs.js";
import { launchAndReport } from "./launch-and-report.js";

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
