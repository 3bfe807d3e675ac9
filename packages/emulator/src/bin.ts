#!/usr/bin/env node
// wfr-emulator: start the local twin of the Workflow Run service.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { apiFaultFromFlag } from "./faults/api-faults.js";
import { type EmulatorOptions, launchEmulator, startMessage } from "./index.js";

const USAGE = `Usage: wfr-emulator [options]
  --port <n>                 port (default 4010; 0 = any free port)
  --host <h>                 host (default 127.0.0.1)
  --catalog <file>           workflows from a YAML/JSON catalog
  --from-schemas <dir>       twin mode: <dir>/<env>/openapi.(json|yaml)
  --data <file>              persistence journal (default in-memory); the API keys printed
                             at start are kept in <file>.keys.json and printed again
  --allow-local-callbacks    accept http:// and private callback_url
  --clock real|virtual       virtual: time moves only on POST /_emulator/clock/advance
  --no-admin                 disable the /_emulator admin API
  --cors-origin <origin>     permitted application origin (repeatable)
  --webhook-secret <whsec_>  sign callbacks (Standard Webhooks); visible in ps: prefer
                             --webhook-secret-file or WFR_EMULATOR_WEBHOOK_SECRET
  --webhook-secret-file <f>  the whsec_ secret, read from a file
  --log-format text|json     request log format on stdout (default text)
  --quiet                    no request log
  --forward-callbacks <url>  deliver every callback to this local receiver (original URL in
                             the X-Wfr-Callback-Url header)
  --deliver-public           send callbacks to public addresses (default: held, not sent)
  --admin-token <token>      require Authorization: Bearer <token> on the admin API; visible
                             in ps: prefer --admin-token-file or WFR_EMULATOR_ADMIN_TOKEN
  --admin-token-file <file>  the admin token, read from a file
  --expose-admin-without-token
                             listen beyond loopback with the admin API open and no token
                             (refused otherwise)
  --allowed-host <name>      accept this Host header too (repeatable; DNS-rebinding guard)
  --compact-after-bytes <n>  with --data: compact the journal in the background once n bytes
                             were appended since the last compaction (default 67108864)
  --finished-runs-in-memory <n>
                             with --data: finished runs kept in memory (default 1000); older
                             ones live on disk in <file>.runs, read back on demand
  --api-fault <rule>         a fault on the API itself (repeatable), e.g.
                             "503 POST /automations/*/runs count=2", "429 * /** retry_after=2",
                             "drop POST /automations/*/runs", "stall=2000 GET /runs/*" or the
                             JSON body of POST /_emulator/api-faults
`;

/**
 * A secret from `--<name>`, `--<name>-file` (trailing newline dropped) or the environment
 * variable, in that order; argv is visible to every user of the machine (`ps`), the other two
 * are not. More than one of them is an error.
 */
function secretOption(
  values: Record<string, unknown>,
  name: string,
  variable: string,
): string | undefined {
  const given = [
    values[name] !== undefined ? "flag" : null,
    values[`${name}-file`] !== undefined ? "file" : null,
    process.env[variable] !== undefined ? "variable" : null,
  ].filter((g) => g !== null);
  if (given.length > 1)
    throw new Error(`give the ${name} once: --${name}, --${name}-file or ${variable}`);
  if (values[name] !== undefined) return String(values[name]);
  const file = values[`${name}-file`];
  if (file !== undefined) {
    try {
      return readFileSync(String(file), "utf8").replace(/\r?\n$/, "");
    } catch (e) {
      throw new Error(`--${name}-file ${String(file)}: ${(e as Error).message}`);
    }
  }
  return process.env[variable];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "4010" },
      host: { type: "string", default: "127.0.0.1" },
      catalog: { type: "string" },
      "from-schemas": { type: "string" },
      data: { type: "string" },
      "allow-local-callbacks": { type: "boolean", default: false },
      clock: { type: "string", default: "real" },
      "no-admin": { type: "boolean", default: false },
      "cors-origin": { type: "string", multiple: true },
      "webhook-secret": { type: "string" },
      "log-format": { type: "string", default: "text" },
      quiet: { type: "boolean", default: false },
      "admin-token": { type: "string" },
      "admin-token-file": { type: "string" },
      "webhook-secret-file": { type: "string" },
      "expose-admin-without-token": { type: "boolean", default: false },
      "forward-callbacks": { type: "string" },
      "deliver-public": { type: "boolean", default: false },
      "allowed-host": { type: "string", multiple: true },
      "compact-after-bytes": { type: "string" },
      "finished-runs-in-memory": { type: "string" },
      "api-fault": { type: "string", multiple: true },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port: bad port ${values.port}`);
  if (values.clock !== "real" && values.clock !== "virtual")
    throw new Error("--clock must be real or virtual");
  if (values["log-format"] !== "text" && values["log-format"] !== "json")
    throw new Error("--log-format must be text or json");
  const opts: EmulatorOptions = {
    requestLog: values.quiet ? "off" : values["log-format"],
    port,
    host: values.host,
    clock: values.clock,
    admin: !values["no-admin"],
    allowLocalCallbacks: values["allow-local-callbacks"],
    corsOrigins: values["cors-origin"] ?? [],
  };
  if (values.catalog) opts.catalog = values.catalog;
  if (values["from-schemas"]) opts.fromSchemas = values["from-schemas"];
  if (values.data) opts.data = values.data;
  // An empty value is passed on, to be refused (an unset variable), never read as "no token".
  const adminToken = secretOption(values, "admin-token", "WFR_EMULATOR_ADMIN_TOKEN");
  if (adminToken !== undefined) opts.adminToken = adminToken;
  opts.exposeAdminWithoutToken = values["expose-admin-without-token"];
  if (values["forward-callbacks"]) {
    const u = URL.canParse(values["forward-callbacks"])
      ? new URL(values["forward-callbacks"])
      : null;
    if (!u || (u.protocol !== "http:" && u.protocol !== "https:"))
      throw new Error("--forward-callbacks must be an http(s) URL");
    opts.forwardCallbacks = u.toString();
  }
  opts.deliverPublic = values["deliver-public"];
  if (values["allowed-host"]) opts.allowedHosts = values["allowed-host"];
  if (values["compact-after-bytes"] !== undefined) {
    const n = Number(values["compact-after-bytes"]);
    if (!Number.isSafeInteger(n) || n < 1)
      throw new Error("--compact-after-bytes must be a positive integer");
    opts.compactAfterBytes = n;
  }
  if (values["finished-runs-in-memory"] !== undefined) {
    const n = Number(values["finished-runs-in-memory"]);
    if (!Number.isSafeInteger(n) || n < 0)
      throw new Error("--finished-runs-in-memory must be a non-negative integer");
    opts.finishedRunsInMemory = n;
  }
  const webhookSecret = secretOption(values, "webhook-secret", "WFR_EMULATOR_WEBHOOK_SECRET");
  if (webhookSecret !== undefined) {
    if (webhookSecret.trim() === "")
      throw new Error("--webhook-secret is empty (an unset variable?): give a whsec_ secret");
    opts.webhookSecret = webhookSecret;
  }
  if (values["api-fault"]) {
    opts.apiFaults = values["api-fault"].map((text, i) => {
      try {
        return apiFaultFromFlag(text);
      } catch (e) {
        throw new Error(`--api-fault ${i + 1}: ${(e as Error).message}`);
      }
    });
  }
  const launched = await launchEmulator(opts);
  const emu = launched.running;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`wfr-emulator: ${signal}, stopping\n`);
    emu.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  // Printed once the signals are handled: whoever reads it may stop the emulator right away.
  // The same text as `wfr emulator` prints (start-message.ts).
  process.stdout.write(startMessage(launched, { program: "wfr-emulator" }));
}

main().catch((e: unknown) => {
  process.stderr.write(`wfr-emulator: ${(e as Error).message}\n`);
  process.exit(1);
});
