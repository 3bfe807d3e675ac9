// The command tree. Every action imports its module on demand so that
// `wfr --help` loads neither TypeScript (codegen) nor the emulator.
import { Command, Option } from "commander";
import { CliError } from "./cli-error.js";
import { EXIT } from "./exit-codes.js";
import { explainMissingPackage } from "./optional-packages.js";
import { VERSION } from "./version.js";

type Action = (...args: never[]) => Promise<number>;

function run<M>(load: () => Promise<M>, pick: (m: M) => Action) {
  return async (...args: unknown[]) => {
    try {
      const mod = await load();
      process.exitCode = await (pick(mod) as (...a: unknown[]) => Promise<number>)(...args);
    } catch (error) {
      explainMissingPackage(error, process.cwd());
    }
  };
}

const keyOptions = (c: Command) =>
  c
    .option("--env <env>", "environment from wfr.config.json")
    .option("--api-key-file <file>", "read the API key from this file")
    .option("--api-key-stdin", "read the API key from standard input")
    .option("--config <file>", "config file (default: wfr.config.json, searched upwards)");

const collect = (value: string, previous: string[] = []) => [...previous, value];

function buildProgram(): Command {
  const program = new Command("wfr")
    .description("Workflow Run from the command line: schemas, code generation, runs, emulator.")
    .version(VERSION)
    .showHelpAfterError()
    .addHelpText(
      "after",
      `
Examples:
  wfr init
  wfr schemas pull --check
  wfr generate
  wfr launch invoiceIntake --env production --input amount=12 --file invoice_pdf=inv.pdf --wait
  wfr runs watch run_123 --env production

Exit codes: see \`wfr help exit-codes\` or the README.`,
    );

  program
    .command("init")
    .description(
      "add wfr.config.json, schemas/, package scripts, the #wfr/* import alias and a CI workflow to this repository",
    )
    .option("--yes", "write without asking (no prompts: needs --base-url on a new environment)")
    .option("--no-input", "never prompt (fails where an answer is needed)")
    .option("--env <name>", "environment name (default: asked, or production)")
    .option("--base-url <url>", "the environment's API base, ending in /api/v1")
    .option(
      "--api-key-env <VAR>",
      "name of the environment variable holding the key (default WFR_<ENV>_API_KEY)",
    )
    .option("--add-env", "add one more environment to an initialised repository")
    .addHelpText(
      "after",
      "\nKeys: a scoped workspace key, created in the Workflow Run application under its resources section\n(scopes workflows:run and runs:read); `wfr emulator` prints one for local work. Only the NAME of the\nvariable holding it is written.\n\nExamples:\n  wfr init\n  wfr init --yes --env production --base-url https://api.example.com/production/api/v1\n  wfr init --add-env --yes --env staging --base-url https://api.example.com/staging/api/v1",
    )
    .action(
      run(
        () => import("./commands/init/index.js"),
        (m) => m.initCommand,
      ),
    );

  const schemas = program
    .command("schemas")
    .description("download and check environment definitions");
  schemas
    .command("pull")
    .description("download each environment's definition into schemas/<env>/ (atomically)")
    .argument("[env...]", "environments (default: all in wfr.config.json)")
    .option(
      "--check",
      "write nothing; compare with the committed files (exit 0 same, 3 non-breaking, 4 breaking)",
    )
    .option("--json", "print the drift report as JSON")
    .option("--config <file>", "config file")
    .option("--api-key-file <file>", "read the API key from this file")
    .addHelpText("after", "\nExamples:\n  wfr schemas pull\n  wfr schemas pull production --check")
    .action(
      run(
        () => import("./commands/schemas/pull.js"),
        (m) => m.schemasPullCommand,
      ),
    );

  program
    .command("generate")
    .description("generate typed code from schemas/ (the codegen generator)")
    .option("--check", "write nothing; exit 3 when the generated code is stale")
    .option("--config <file>", "config file")
    .option(
      "--allow-remove <env>",
      "delete the generated code of an environment whose definition is gone (repeatable)",
      collect,
    )
    .option("--watch", "generate again after every change under schemas/ (Ctrl-C stops)")
    .addHelpText(
      "after",
      "\nExamples:\n  wfr generate\n  wfr generate --check\n  wfr generate --watch\n  wfr generate --allow-remove staging",
    )
    .action(
      run(
        () => import("./commands/generate/index.js"),
        (m) => m.generateCommand,
      ),
    );

  program
    .command("diff")
    .description("breaking-change diff of two definitions (files, schemas/<env> folders or URLs)")
    .argument("<old>")
    .argument("<new>")
    .addOption(
      new Option("--format <format>").choices(["text", "markdown", "json"]).default("text"),
    )
    .addOption(new Option("--fail-on <what>").choices(["breaking", "any", "none"]).default("none"))
    .addHelpText(
      "after",
      "\nExamples:\n  wfr diff schemas/production old.json --fail-on breaking --format markdown",
    )
    .action(
      run(
        () => import("./commands/diff/index.js"),
        (m) => m.diffCommand,
      ),
    );

  keyOptions(
    program
      .command("launch")
      .description(
        "launch a workflow (by identifier, display name or id); prints the idempotency key first",
      )
      .argument("<workflow>")
      .option(
        "--input <key=value>",
        "an input, parsed by the field's declared type (repeatable)",
        collect,
      )
      .option("--inputs <file.json>", "inputs from a JSON object file")
      .option("--file <field=path>", "a file input, sent as an attachment (repeatable)", collect)
      .option("--metadata <file.json>", "caller metadata (JSON object file)")
      .option("--model <m>", "model override where the environment exposes it")
      .option("--idempotency-key <k>", "reuse a key (after a crash: same run)")
      .option("--wait", "wait until terminal or a person is needed")
      .option("--json", "print the run envelope as JSON"),
  )
    .addHelpText(
      "after",
      "\nExamples:\n  wfr launch invoiceIntake --env production --input amount=12 --input vendor_name=Acme",
    )
    .action(
      run(
        () => import("./commands/launch/index.js"),
        (m) => m.launchCommand,
      ),
    );

  const runs = program.command("runs").description("read, watch and answer runs");
  for (const [name, description] of [
    ["get", "print the run envelope"],
    ["result", "print the result (outputs) or the pending status"],
    ["events", "print the event snapshot"],
  ] as const) {
    keyOptions(runs.command(name).description(description).argument("<runId>"))
      .option("--json", "JSON output")
      .addHelpText("after", `\nExamples:\n  wfr runs ${name} run_123 --env production --json`)
      .action(
        run(
          () => import("./commands/runs/read.js"),
          (m) => m.readCommand(name),
        ),
      );
  }
  keyOptions(
    runs
      .command("watch")
      .description("follow a run until terminal or a person is needed")
      .argument("<runId>"),
  )
    .option("--timeout <seconds>", "give up after this long (exit 7)", "1800")
    .option("--json", "NDJSON lines even in a TTY")
    .addHelpText("after", "\nExamples:\n  wfr runs watch run_123 --env production")
    .action(
      run(
        () => import("./commands/runs/watch.js"),
        (m) => m.watchCommand,
      ),
    );
  keyOptions(
    runs.command("answer").description("answer the run's human checkpoint").argument("<runId>"),
  )
    .option("--checkpoint <id>", "the checkpoint being answered")
    .option("--response <text>", "the answer, sent as text (whatever it looks like)")
    .option("--response-json <json>", "the answer as JSON (an object, a number, ...)")
    .option("--response-file <file>", "the answer from a JSON file")
    .option("--no-input", "never prompt")
    .option("--json", "JSON output")
    .addHelpText(
      "after",
      "\nExamples:\n  wfr runs answer run_123 --env production\n  wfr runs answer run_123 --checkpoint cp_1 --response 012345 --no-input\n  wfr runs answer run_123 --response-json '{\"approved\":true}'",
    )
    .action(
      run(
        () => import("./commands/runs/answer.js"),
        (m) => m.answerCommand,
      ),
    );
  keyOptions(
    runs
      .command("recording")
      .description("download the session recording (MP4)")
      .argument("<runId>"),
  )
    .requiredOption("-o, --output <file>", "where to write the MP4 (atomically)")
    .addHelpText("after", "\nExamples:\n  wfr runs recording run_123 --env production -o run.mp4")
    .action(
      run(
        () => import("./commands/runs/recording.js"),
        (m) => m.recordingCommand,
      ),
    );

  keyOptions(
    runs
      .command("relaunch")
      .description("launch the run's workflow again (a new run) with its inputs and any edits")
      .argument("<runId>"),
  )
    .option(
      "--input <name=value>",
      "change an input, parsed by its declared type (repeatable)",
      collect,
    )
    .option(
      "--inputs <file.json>",
      "the run's inputs, when the environment does not give them back",
    )
    .option(
      "--file <field=path>",
      "a file input (repeatable; attachment bytes are never given back)",
      collect,
    )
    .option("--metadata <file.json>", "caller metadata (default: the run's)")
    .option("--model <m>", "model override (default: the run's, where exposed)")
    .option("--idempotency-key <k>", "reuse a key (after a crash: same run)")
    .option("--wait", "wait until terminal or a person is needed")
    .option("--json", "print the run envelope as JSON")
    .addHelpText(
      "after",
      "\nExamples:\n  wfr runs relaunch run_123 --env production --input amount=13\n  wfr runs relaunch run_123 --inputs run_123.inputs.json --file invoice_pdf=inv.pdf",
    )
    .action(
      run(
        () => import("./commands/runs/relaunch.js"),
        (m) => m.relaunchCommand,
      ),
    );
  keyOptions(
    runs
      .command("export")
      .description("record a finished run into a scenario file the emulator replays")
      .argument("<runId>"),
  )
    .option("-o, --output <file>", "where to write it (default <runId>.wfr-run.json)")
    .option("--fetch-files", "download file outputs and keep their bytes in the file")
    .option("--keep-secret-looking-fields", "keep event fields named like password, token, secret")
    .addHelpText(
      "after",
      "\nExamples:\n  wfr runs export run_123 --env production --fetch-files\n  wfr emulator --from-schemas schemas --scenario run_123.wfr-run.json",
    )
    .action(
      run(
        () => import("./commands/runs/export.js"),
        (m) => m.exportCommand,
      ),
    );
  keyOptions(
    runs
      .command("grant")
      .description("a short-lived browser-access grant to embed the run's live view")
      .argument("<runId>"),
  )
    .option("--origin <origin>", "an exact origin the page is served from (repeatable)", collect)
    .option("--expires-in <seconds>", "lifetime, 1 to 3600 seconds (service default when absent)")
    .option("--json", "JSON output")
    .addHelpText(
      "after",
      "\nExamples:\n  wfr runs grant run_123 --env production --origin https://app.example.com --expires-in 300",
    )
    .action(
      run(
        () => import("./commands/runs/grant.js"),
        (m) => m.grantCommand,
      ),
    );
  keyOptions(
    runs
      .command("revoke-grant")
      .description("delete a browser-access grant (the run goes on)")
      .argument("<grantId>"),
  )
    .addHelpText("after", "\nExamples:\n  wfr runs revoke-grant grant_123 --env production")
    .action(
      run(
        () => import("./commands/runs/grant.js"),
        (m) => m.revokeGrantCommand,
      ),
    );

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
    .option("--admin-token <token>", "require Authorization: Bearer <token> on the admin API")
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
      run(
        () => import("./commands/emulator/index.js"),
        (m) => m.emulatorCommand,
      ),
    );

  program
    .command("mcp")
    .description("serve the agent (MCP) tools on stdio for a coding agent in this repository")
    .option("--env <name>", "environment from the config file")
    .option("--config <file>", "config file (default: wfr.config.json, searched upwards)")
    .option("--api-key-file <file>", "read the key from this file (stdin is the MCP channel)")
    .addHelpText(
      "after",
      '\nExamples:\n  wfr mcp --env production\n\nClient configuration:\n  { "mcpServers": { "wfr": { "command": "npx", "args": ["wfr", "mcp", "--env", "production"] } } }',
    )
    .action(
      run(
        () => import("./commands/mcp/index.js"),
        (m) => m.mcpCommand,
      ),
    );

  program
    .command("callbacks")
    .description("local callback receiver")
    .command("listen")
    .description(
      "print each delivery (type, run, event_id), its signature and dedupe verdicts; optionally forward it",
    )
    .option("--port <n>", "port (0 = any free port)", "4020")
    .option("--host <h>", "host", "127.0.0.1")
    .option(
      "--forward-to <url>",
      "forward each delivery (body and webhook-* headers) to your server",
    )
    .option("--webhook-secret-file <file>", "verify signatures with the whsec_ secret in this file")
    .option("--json", "NDJSON lines even in a TTY")
    .addHelpText(
      "after",
      "\nExamples:\n  wfr callbacks listen --port 4020 --webhook-secret-file .whsec --forward-to http://127.0.0.1:3000/wfr/callbacks",
    )
    .action(
      run(
        () => import("./commands/callbacks/listen.js"),
        (m) => m.callbacksListenCommand,
      ),
    );

  program
    .command("exit-codes")
    .description("print the exit-code table")
    .action(
      run(
        () => import("./commands/exit-codes/index.js"),
        (m) => m.exitCodesCommand,
      ),
    );

  return program;
}

export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  // Every command, not just the root: a subcommand's own parse errors (an unknown subcommand
  // such as `runs wach`, a missing required option) would otherwise exit 1 from inside commander.
  const overrideExit = (command: typeof program): void => {
    command.exitOverride();
    for (const sub of command.commands) overrideExit(sub);
  };
  overrideExit(program);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    const e = error as { code?: string; exitCode?: number };
    if (typeof e.code === "string" && e.code.startsWith("commander.")) {
      if (
        e.code === "commander.helpDisplayed" ||
        e.code === "commander.version" ||
        e.code === "commander.help"
      )
        return 0;
      return EXIT.USAGE;
    }
    if (error instanceof CliError) {
      process.stderr.write(`wfr: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`wfr: ${(error as Error)?.stack ?? String(error)}\n`);
    return EXIT.ERROR;
  }
}
