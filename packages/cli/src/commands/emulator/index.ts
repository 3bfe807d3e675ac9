// `wfr emulator`: starts the emulator, prints base URLs, the sign-in link and a key per environment.
import { launch, readApiFaults, readRecordedRuns, startMessage } from "../../adapters/emulator.js";
import { CliError } from "../../cli-error.js";
import { EXIT } from "../../exit-codes.js";
import { FILE_BUDGET, readTextFileWithin } from "../../file-budgets.js";
import { missingOptionalPackage } from "../../optional-packages.js";

export async function emulatorCommand(options: {
  port: string;
  host: string;
  catalog?: string;
  fromSchemas?: string;
  data?: string;
  allowLocalCallbacks?: boolean;
  clock: "real" | "virtual";
  admin: boolean;
  webhookSecretFile?: string;
  scenario?: string[];
  apiFault?: string[];
  corsOrigin?: string[];
  logFormat?: "text" | "json";
  quiet?: boolean;
  adminToken?: string;
  adminTokenFile?: string;
  exposeAdminWithoutToken?: boolean;
  forwardCallbacks?: string;
  deliverPublic?: boolean;
  allowedHost?: string[];
  compactAfterBytes?: string;
  finishedRunsInMemory?: string;
}): Promise<number> {
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliError(`--port: bad port ${options.port}`, EXIT.USAGE);
  // Each reader loads @wfr/emulator: called only for an option that was given, and a missing
  // optional peer is left to the command's install hint (lazy-action.ts), not told as that option's fault.
  let recordedRuns: Awaited<ReturnType<typeof readRecordedRuns>> = [];
  if (options.scenario !== undefined)
    try {
      recordedRuns = await readRecordedRuns(options.scenario);
    } catch (error) {
      if (missingOptionalPackage(error) !== undefined) throw error;
      throw new CliError(`--scenario ${(error as Error).message}`, EXIT.USAGE);
    }
  let apiFaults: Record<string, unknown>[] = [];
  if (options.apiFault !== undefined)
    try {
      apiFaults = await readApiFaults(options.apiFault);
    } catch (error) {
      if (missingOptionalPackage(error) !== undefined) throw error;
      throw new CliError(`--api-fault ${(error as Error).message}`, EXIT.USAGE);
    }
  let compactAfterBytes: number | undefined;
  if (options.compactAfterBytes !== undefined) {
    compactAfterBytes = Number(options.compactAfterBytes);
    if (!Number.isSafeInteger(compactAfterBytes) || compactAfterBytes < 1)
      throw new CliError("--compact-after-bytes: must be a positive integer", EXIT.USAGE);
  }
  let finishedRunsInMemory: number | undefined;
  if (options.finishedRunsInMemory !== undefined) {
    finishedRunsInMemory = Number(options.finishedRunsInMemory);
    if (!Number.isSafeInteger(finishedRunsInMemory) || finishedRunsInMemory < 0)
      throw new CliError("--finished-runs-in-memory: must be a non-negative integer", EXIT.USAGE);
  }
  if (options.forwardCallbacks !== undefined && !/^https?:\/\//.test(options.forwardCallbacks))
    throw new CliError("--forward-callbacks: must be an http(s) URL", EXIT.USAGE);
  // The same options as the emulator's own `wfr-emulator` bin, requests logged the same way.
  const launched = await launch({
    requestLog: options.quiet ? "off" : (options.logFormat ?? "text"),
    corsOrigins: options.corsOrigin ?? [],
    deliverPublic: options.deliverPublic === true,
    // An empty token is passed on, to be refused by the emulator (an unset variable), never
    // read as "no token"; a file or the environment keeps it out of argv (`ps`).
    ...adminTokenOption(options),
    exposeAdminWithoutToken: options.exposeAdminWithoutToken ?? false,
    ...(options.forwardCallbacks ? { forwardCallbacks: options.forwardCallbacks } : {}),
    ...(options.allowedHost ? { allowedHosts: options.allowedHost } : {}),
    ...(compactAfterBytes !== undefined ? { compactAfterBytes } : {}),
    ...(finishedRunsInMemory !== undefined ? { finishedRunsInMemory } : {}),
    recordedRuns,
    apiFaults,
    port,
    host: options.host,
    clock: options.clock,
    admin: options.admin,
    allowLocalCallbacks: options.allowLocalCallbacks === true,
    ...(options.catalog ? { catalog: options.catalog } : {}),
    ...(options.fromSchemas ? { fromSchemas: options.fromSchemas } : {}),
    ...(options.data ? { data: options.data } : {}),
    ...(options.webhookSecretFile
      ? {
          webhookSecret: readTextFileWithin(
            "--webhook-secret-file",
            options.webhookSecretFile,
            FILE_BUDGET.secret,
          ).trim(),
        }
      : {}),
  }).catch((error: unknown) => {
    // Options the emulator refuses (an open admin API beyond loopback, an empty token) are
    // usage errors with their reason, not a crash.
    if ((error as Error)?.name === "EmulatorOptionError")
      throw new CliError((error as Error).message, EXIT.USAGE);
    // A recorded run naming an environment or workflow this emulator lacks: its file is named.
    const index = (error as { recordedRunIndex?: unknown })?.recordedRunIndex;
    if ((error as Error)?.name === "RecordedRunError" && typeof index === "number")
      throw new CliError(
        `--scenario ${options.scenario?.[index] ?? ""}: ${(error as Error).message}`,
        EXIT.USAGE,
      );
    throw error;
  });
  // Stop on a signal from the moment the text is out: a supervisor that reads
  // the keys and sends SIGTERM at once must still get a clean stop.
  const stopped = new Promise<void>((resolveStop) => {
    const stop = () => resolveStop();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  // The emulator's own start-up text, as `wfr-emulator` prints it: base URL,
  // definition and a key per environment (kept across restarts with --data).
  process.stdout.write(await startMessage(launched, { program: "wfr emulator", recordedRuns }));
  await stopped;
  process.stderr.write("wfr emulator: stopping\n");
  await launched.running.close();
  return EXIT.OK;
}

/** The admin token from `--admin-token`, `--admin-token-file` or WFR_EMULATOR_ADMIN_TOKEN (one of them). */
function adminTokenOption(options: { adminToken?: string; adminTokenFile?: string }): {
  adminToken?: string;
} {
  const fromEnv = process.env.WFR_EMULATOR_ADMIN_TOKEN;
  const given = [options.adminToken, options.adminTokenFile, fromEnv].filter(
    (v) => v !== undefined,
  );
  if (given.length > 1)
    throw new CliError(
      "give the admin token once: --admin-token, --admin-token-file or WFR_EMULATOR_ADMIN_TOKEN",
      EXIT.USAGE,
    );
  if (options.adminToken !== undefined) return { adminToken: options.adminToken };
  if (options.adminTokenFile !== undefined) {
    const text = readTextFileWithin(
      "--admin-token-file",
      options.adminTokenFile,
      FILE_BUDGET.secret,
    );
    return { adminToken: text.replace(/\r?\n$/, "") };
  }
  return fromEnv !== undefined ? { adminToken: fromEnv } : {};
}
