#!/usr/bin/env node
// batch-launch rows.csv|rows.jsonl --workflow <name> [--env <env>] [--concurrency n]
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  findWorkflow,
  loadConfig,
  pickEnvironment,
  readEnvironmentModel,
  resolveApiKey,
} from "@wfr/cli";
import { createClient, type Logger } from "@wfr/runtime";
import { openJournal } from "./journal-choice.js";
import { launchBatch, type RowOutcome } from "./launch-batch.js";
import { planRows } from "./plan.js";
import { progressWriter } from "./progress-output.js";
import { writeReportFile } from "./report-file.js";
import { rowsFromFile } from "./rows.js";

const HELP = `batch-launch <rows.csv|rows.jsonl> --workflow <name> [--env <env>] [--concurrency n] [--report file]

Launches one run per row of the file, with the columns mapped to the workflow's
inputs by their declared types (a cell that does not fit is reported with its
row and column before anything is sent). Each row's intent is recorded in the
launch journal first, so a restart after a crash resumes where it stopped and
never launches a row twice. A column named "id" is the row's own key.

  --workflow       generated identifier, display name or id
  --env            environment in wfr.config.json (default: the first)
  --concurrency    launches in flight (default 8)
  --report         where to write run ids per row (default <file>.report.jsonl)

The key comes from the environment variable wfr.config.json names. The journal is
the file .wfr/batch-launch/journal.jsonl (one launcher at a time) unless
DATABASE_URL is set: postgres://... (launchers may share it) or pglite:<dir>.

Exit: 0 every row launched; 1 some rows failed (see the report); 2 bad input, nothing sent.`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    workflow: { type: "string" },
    env: { type: "string" },
    concurrency: { type: "string", default: "8" },
    report: { type: "string" },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const [file] = positionals;
const concurrency = Number(values.concurrency);
if (!file || !values.workflow || !Number.isInteger(concurrency) || concurrency < 1) {
  console.error(
    `batch-launch: ${!file ? "a rows file" : !values.workflow ? "--workflow" : "--concurrency (a whole number >= 1)"} is required\n\n${HELP}`,
  );
  process.exit(2);
}

try {
  const config = loadConfig(process.cwd());
  const env = pickEnvironment(config, values.env);
  const candidates = ["openapi.json", "openapi.yaml"].map((n) =>
    join(config.root, config.schemas, env.name, n),
  );
  const definition = candidates.find((candidate) => existsSync(candidate));
  if (!definition)
    throw new Error(
      `no definition in ${join(config.schemas, env.name)}: run \`wfr schemas pull ${env.name}\``,
    );
  const model = await readEnvironmentModel(definition);
  const workflow = findWorkflow(model.workflows, values.workflow);
  const rows = rowsFromFile(file, readFileSync(file, "utf8"));
  const { planned, errors } = planRows(workflow, rows);
  if (errors.length > 0) {
    for (const error of errors) console.error(`batch-launch: ${error}`);
    console.error(`batch-launch: ${errors.length} problem(s); nothing was sent`);
    process.exit(2);
  }
  const apiKey = await resolveApiKey(env, {});
  const journal = await openJournal(
    join(config.root, ".wfr", "batch-launch"),
    process.env.DATABASE_URL,
    { rows: planned.length },
  );
  const tty = process.stderr.isTTY && !process.env.NO_COLOR && process.env.TERM !== "dumb";
  const started = Date.now();
  let failed = 0;
  const progress = progressWriter((text) => process.stderr.write(text));
  // Rate limiting: the runtime waits as long as a 429's Retry-After says and
  // resends the same key and body; the progress says so while it waits.
  const logger: Logger = {
    warn(message, fields) {
      if (message !== "retrying after HTTP status") return;
      const seconds = Math.ceil(Number(fields?.delayMs ?? 0) / 1000);
      progress.flush();
      const why = fields?.status === 429 ? "rate limited (HTTP 429)" : `HTTP ${fields?.status}`;
      process.stderr.write(
        `${tty ? "\r\u001b[2K" : ""}waiting ${seconds} s: ${why}, then retrying the same launch\n`,
      );
    },
  };
  const bar = (done: number, total: number) => {
    const width = 30;
    const filled = Math.round((done / total) * width);
    const rate = done / Math.max(0.001, (Date.now() - started) / 1000);
    return `\r\u001b[2K[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total} ${rate.toFixed(1)}/s${failed ? ` ${failed} failed` : ""}`;
  };
  const outcomes: RowOutcome[] = await launchBatch(planned, {
    client: createClient({
      baseUrl: env.baseUrl,
      apiKey,
      logger,
      // A batch may meet a rate limit many times: more attempts and a longer
      // budget than an interactive call (each resend has the same idempotency key).
      retry: { maxAttempts: 8, totalTimeoutMs: 10 * 60_000 },
    }),
    journal: journal.launchJournal,
    workflowId: workflow.id,
    file,
    concurrency,
    onOutcome: (outcome, done, total) => {
      if (outcome.error) failed += 1;
      if (tty) {
        progress.set(bar(done, total));
      } else {
        progress.add(
          `row ${outcome.row}: ${outcome.run_id ?? `${outcome.error?.code}: ${outcome.error?.message}`}\n`,
        );
      }
    },
  });
  progress.flush();
  if (tty) process.stderr.write("\n");
  await journal.close();
  const report = resolve(values.report ?? `${file}.report.jsonl`);
  writeReportFile(report, outcomes);
  const seconds = (Date.now() - started) / 1000;
  console.error(
    `batch-launch: ${outcomes.length - failed} launched, ${failed} failed in ${seconds.toFixed(3)} s (${(outcomes.length / seconds).toFixed(1)} rows/s); report: ${report}`,
  );
  process.exit(failed > 0 ? 1 : 0);
} catch (error) {
  console.error(`batch-launch: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
