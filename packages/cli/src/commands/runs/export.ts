// `wfr runs export <runId>`: a finished run recorded into a scenario file the emulator replays.
import { RUN_STATUS } from "@wfr/protocol";
import { toCliError } from "../../adapters/runtime.js";
import { CliError } from "../../cli-error.js";
import { type ConnectionOptions, openConnection } from "../../connection.js";
import { EXIT } from "../../exit-codes.js";
import { terminal } from "../../terminal.js";

function fileReferences(
  value: unknown,
  out: {
    download_url: string;
    filename: string;
    mime_type: string;
    size_bytes?: number;
    expires_at?: string | null;
  }[] = [],
) {
  if (Array.isArray(value)) for (const v of value) fileReferences(v, out);
  else if (value !== null && typeof value === "object") {
    const o = value as Record<string, unknown>;
    if (
      typeof o.download_url === "string" &&
      typeof o.filename === "string" &&
      typeof o.mime_type === "string"
    )
      out.push(o as (typeof out)[number]);
    else for (const v of Object.values(o)) fileReferences(v, out);
  }
  return out;
}

/**
 * `wfr runs export <runId>`: a finished run of any environment (real or emulator), recorded into a
 * scenario file that `wfr emulator --scenario` or the testing kit replays. The file is meant to be
 * committed, so it is written by allow-list: its shape, timings and types are kept, and every value
 * of the run becomes a placeholder of the same JSON type unless `--keep-values` (then event fields
 * that look secret are still replaced unless `--keep-secret-looking-fields`). Caller metadata is
 * never written.
 */
export async function exportCommand(
  runId: string,
  options: ConnectionOptions & {
    output?: string;
    fetchFiles?: boolean;
    keepValues?: boolean;
    keepSecretLookingFields?: boolean;
  },
): Promise<number> {
  const t = terminal();
  if (options.fetchFiles && !options.keepValues)
    throw new CliError(
      "--fetch-files keeps the files' bytes, which are values of the run: add --keep-values",
      EXIT.USAGE,
    );
  const { client, env } = await openConnection(options);
  const { recordRun } = await import("../../adapters/emulator.js");
  let recorded: Awaited<ReturnType<typeof recordRun>>;
  try {
    const [run, events, result] = await Promise.all([
      client.getRun(runId),
      client.getEvents(runId),
      client.getResult(runId),
    ]);
    if (result.state !== "terminal")
      throw new CliError(
        `run ${runId} is ${result.serverStatus}: only a finished run can be exported; try again when it has ended`,
        EXIT.RUN_FAILED,
      );
    const outputs = result.status === RUN_STATUS.succeeded ? result.outputs : null;
    const files = new Map<string, Uint8Array>();
    // File bytes are values too: fetched only when they are kept.
    if (options.fetchFiles && options.keepValues && outputs) {
      for (const reference of fileReferences(outputs)) {
        // Only from the environment or its storage origins (the runtime's download policy).
        const response = await client.downloadFileOutput(reference);
        files.set(reference.download_url, new Uint8Array(await response.arrayBuffer()));
      }
    }
    recorded = await recordRun({
      run: { ...run },
      events,
      result: { status: result.serverStatus, error: result.error, outputs },
      environment: env.name,
      apiBase: env.baseUrl,
      files,
      keepValues: options.keepValues === true,
      keepSecretLookingFields: options.keepSecretLookingFields === true,
    });
  } catch (error) {
    if (error instanceof CliError) throw error;
    if ((error as Error).name === "RecordedRunError")
      throw new CliError((error as Error).message, EXIT.RUN_FAILED);
    throw toCliError(error);
  }
  const path = options.output ?? `${runId}.wfr-run.json`;
  const { writeFileAtomic } = await import("../../atomic-write.js");
  writeFileAtomic(path, `${JSON.stringify(recorded, null, 2)}\n`);
  t.stderr.write(
    `wrote ${path}: ${recorded.scenario.steps.length} steps of run ${runId} (${recorded.recorded_from.status}); replay it with: wfr emulator --scenario ${path}\n`,
  );
  return EXIT.OK;
}
