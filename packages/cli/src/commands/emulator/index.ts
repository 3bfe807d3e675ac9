// `wfr emulator`: starts the emulator, prints base URLs, the sign-in link and a key per environment.
import { readFileSync } from "node:fs";
import { DEFINITION_FILE, DEFINITION_PATH_PREFIX } from "@wfr/protocol";
import { launch, readApiFaults, readRecordedRuns } from "../../adapters/emulator.js";
import { CliError } from "../../cli-error.js";
import { EXIT } from "../../exit-codes.js";

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
  forwardCallbacks?: string;
  deliverPublic?: boolean;
  allowedHost?: string[];
  compactAfterBytes?: string;
}): Promise<number> {
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliError(`--port: bad port ${options.port}`, EXIT.USAGE);
  let recordedRuns: Awaited<ReturnType<typeof readRecordedRuns>> = [];
  try {
    recordedRuns = await readRecordedRuns(options.scenario ?? []);
  } catch (error) {
    throw new CliError(`--scenario ${(error as Error).message}`, EXIT.USAGE);
  }
  let apiFaults: Record<string, unknown>[];
  try {
    apiFaults = await readApiFaults(options.apiFault ?? []);
  } catch (error) {
    throw new CliError(`--api-fault ${(error as Error).message}`, EXIT.USAGE);
  }
  let compactAfterBytes: number | undefined;
  if (options.compactAfterBytes !== undefined) {
    compactAfterBytes = Number(options.compactAfterBytes);
    if (!Number.isSafeInteger(compactAfterBytes) || compactAfterBytes < 1)
      throw new CliError("--compact-after-bytes: must be a positive integer", EXIT.USAGE);
  }
  if (options.forwardCallbacks !== undefined && !/^https?:\/\//.test(options.forwardCallbacks))
    throw new CliError("--forward-callbacks: must be an http(s) URL", EXIT.USAGE);
  // The same options as the emulator's own `wfr-emulator` bin, requests logged the same way.
  const { running, environments } = await launch({
    requestLog: options.quiet ? "off" : (options.logFormat ?? "text"),
    corsOrigins: options.corsOrigin ?? [],
    deliverPublic: options.deliverPublic === true,
    ...(options.adminToken ? { adminToken: options.adminToken } : {}),
    ...(options.forwardCallbacks ? { forwardCallbacks: options.forwardCallbacks } : {}),
    ...(options.allowedHost ? { allowedHosts: options.allowedHost } : {}),
    ...(compactAfterBytes !== undefined ? { compactAfterBytes } : {}),
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
      ? { webhookSecret: readFileSync(options.webhookSecretFile, "utf8").trim() }
      : {}),
  });
  process.stdout.write(`wfr emulator listening on ${running.url}\n`);
  process.stdout.write(`  web application: ${running.url}/\n`);
  for (const r of recordedRuns)
    process.stdout.write(
      `  replaying ${r.recorded_from.run_id} (${r.recorded_from.status}) for ${r.environment} ${r.workflow_id}\n`,
    );
  process.stdout.write(`  sign in (one-time link): ${running.signInUrl}\n`);
  for (const e of environments) {
    process.stdout.write(
      `  ${e.name}: ${e.baseUrl}\n    definition: ${running.url}/${e.name}${DEFINITION_PATH_PREFIX}${DEFINITION_FILE.json}\n`,
    );
    if (options.admin) {
      // A ready-made key and a portal sign-in through the admin API (emulator README).
      const key = await post(
        `${running.url}/_emulator/keys`,
        { environment: e.name, scopes: ["workflows:run", "runs:read"] },
        options.adminToken,
      );
      process.stdout.write(`    key (emulator only): ${String(key.token)}\n`);
    }
  }
  await new Promise<void>((resolveStop) => {
    const stop = () => resolveStop();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  process.stderr.write("wfr emulator: stopping\n");
  await running.close();
  return EXIT.OK;
}

async function post(
  url: string,
  body: unknown,
  adminToken: string | undefined,
): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(adminToken ? { authorization: `Bearer ${adminToken}` } : {}),
    },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, unknown>;
}
