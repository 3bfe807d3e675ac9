// `wfr emulator`: its options, help and examples; the action is imported when the command runs.
import { type Command, Option } from "commander";
import { lazyAction } from "../../lazy-action.js";
import { collect } from "../../shared-options.js";

export function defineEmulatorCommand(program: Command): void {
  program
    .command("emulator")
    .description("start the local emulator, print base URLs and a ready-made key")
    .option("--port <n>", "port (0 = any free port)", "4010")
    .option("--host <h>", "host", "127.0.0.1")
    .option("--catalog <file>", "workflows from a YAML/JSON catalog")
    .option("--from-schemas <dir>", "twin mode: <dir>/<env>/openapi.(json|yaml)")
    .option("--data <file>", "persistence journal")
    .option("--allow-local-callbacks", "accept http:// and private callback_url")
    .addOption(new Option("--clock <clock>").choices(["real", "virtual"]).default("real"))
    .option("--no-admin", "disable the /_emulator admin API")
    .option("--webhook-secret-file <file>", "sign callbacks with the whsec_ secret in this file")
    .option("--cors-origin <origin>", "permitted application origin (repeatable)", collect)
    .addOption(
      new Option("--log-format <format>", "request log format on stdout")
        .choices(["text", "json"])
        .default("text"),
    )
    .option("--quiet", "no request log")
    .option(
      "--admin-token <token>",
      "require Authorization: Bearer <token> on the admin API (visible in ps: prefer --admin-token-file or WFR_EMULATOR_ADMIN_TOKEN)",
    )
    .option("--admin-token-file <file>", "the admin token, read from this file")
    .option(
      "--expose-admin-without-token",
      "listen beyond loopback with the admin API open and no token (refused otherwise)",
    )
    .option(
      "--forward-callbacks <url>",
      "deliver every callback to this local receiver (original URL in X-Wfr-Callback-Url)",
    )
    .option("--deliver-public", "send callbacks to public addresses (default: held, not sent)")
    .option("--allowed-host <name>", "accept this Host header too (repeatable)", collect)
    .option(
      "--compact-after-bytes <n>",
      "with --data: compact the journal once n bytes were appended since the last compaction",
    )
    .option(
      "--finished-runs-in-memory <n>",
      "with --data: finished runs kept in memory (default 1000); older ones on disk, read on demand",
    )
    .option(
      "--scenario <file>",
      "replay a recorded run (from `wfr runs export`) for its workflow (repeatable)",
      collect,
    )
    .option(
      "--api-fault <rule>",
      'a fault on the emulator\'s API, e.g. "503 POST /automations/*/runs count=2" (repeatable; emulator README)',
      collect,
    )
    .addHelpText(
      "after",
      "\nExamples:\n  wfr emulator --port 0\n  wfr emulator --from-schemas schemas\n  wfr emulator --from-schemas schemas --scenario run_123.wfr-run.json",
    )
    .action(
      lazyAction(
        () => import("./index.js"),
        (m) => m.emulatorCommand,
      ),
    );
}
