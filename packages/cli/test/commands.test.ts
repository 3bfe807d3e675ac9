import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";
import { adminPut, type Fixture, runWfr, startFixture } from "./harness.js";

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
  const pulled = await runWfr(["schemas", "pull"], { cwd: fx.dir, env: fx.env });
  expect(pulled.code, pulled.stderr).toBe(0);
});
afterAll(async () => {
  await fx?.close();
});

const wfr = (args: string[], extra: { env?: Record<string, string>; stdin?: string } = {}) =>
  runWfr(args, {
    cwd: fx.dir,
    env: { ...fx.env, ...extra.env },
    ...(extra.stdin !== undefined ? { stdin: extra.stdin } : {}),
  });

describe("schemas pull", () => {
  it("wrote the definition and --check is identical (exit 0)", async () => {
    expect(existsSync(join(fx.dir, "schemas/production/openapi.json"))).toBe(true);
    const r = await wfr(["schemas", "pull", "--check"]);
    expect(r.code, r.stderr).toBe(EXIT.OK);
    expect(r.stderr).toContain("production: up to date");
  });

  it("--check reports non-breaking drift with exit 3 and writes nothing", async () => {
    const file = join(fx.dir, "schemas/production/openapi.json");
    const original = readFileSync(file, "utf8");
    const doc = JSON.parse(original);
    // The committed file lacks a workflow the environment now has: an addition is non-breaking.
    const paths = Object.keys(doc.paths);
    const broken = paths.find((p) => p.includes("wf_broken1"));
    expect(broken).toBeDefined();
    delete doc.paths[broken as string];
    writeFileSync(file, JSON.stringify(doc, null, 2));
    try {
      const r = await wfr(["schemas", "pull", "--check"]);
      expect(r.code, r.stdout + r.stderr).toBe(EXIT.DRIFT_NON_BREAKING);
      expect(r.stdout).toContain("0 breaking");
      expect(r.stdout).toContain("Broken portal");
      expect(readFileSync(file, "utf8")).toBe(JSON.stringify(doc, null, 2));
    } finally {
      writeFileSync(file, original);
    }
  });

  it("fails naming the environment for an unknown one", async () => {
    const r = await wfr(["schemas", "pull", "nope"]);
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.stderr).toContain('unknown environment "nope"');
  });
});

describe("launch", () => {
  it("parses values by declared type, prints the key first, and runs", async () => {
    const r = await wfr([
      "launch",
      "invoiceIntake",
      "--input",
      "vendor_name=12",
      "--input",
      "amount=12.5",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(EXIT.OK);
    const key = /idempotency key: (\S+)/.exec(r.stderr)?.[1];
    expect(key).toMatch(/^wfr-cli-/);
    const run = JSON.parse(r.stdout);
    expect(run.run_id).toBeTruthy();
    expect(r.stdout + r.stderr).not.toContain(fx.key);
    const history = await fetch(
      `${fx.emulator.url}/_emulator/environments/production/runs/${run.run_id}`,
    );
    const record = (await history.json()) as { inputs: Record<string, unknown> };
    // text stays text ("12"), Number becomes a number
    expect(record.inputs.vendor_name).toBe("12");
    expect(record.inputs.amount).toBe(12.5);
  });

  it("by display name and by id", async () => {
    for (const ref of ["Invoice intake", "wf_invoice1"]) {
      const r = await wfr(["launch", ref, "--input", "vendor_name=A", "--input", "amount=1"]);
      expect(r.code, r.stderr).toBe(EXIT.OK);
      // In a pipe as on a terminal: the run id alone (--json gives the envelope).
      expect(r.stdout).toMatch(/^run_\S+\n$/);
    }
  });

  it("a missing required input: the error says the code once and names the field", async () => {
    const r = await wfr(["launch", "invoiceIntake", "--input", "amount=1"]);
    expect(r.code).toBe(EXIT.INVALID_INPUT);
    expect(r.stderr.match(/INVALID_INPUTS/g)?.length ?? 0).toBeLessThanOrEqual(1);
    expect(r.stderr).toContain("vendor_name");
  });

  it("--input amount=abc fails naming the field, nothing sent", async () => {
    const r = await wfr([
      "launch",
      "invoiceIntake",
      "--input",
      "vendor_name=A",
      "--input",
      "amount=abc",
    ]);
    expect(r.code).toBe(EXIT.INVALID_INPUT);
    expect(r.stderr).toContain("--input amount");
    expect(r.stderr).not.toContain("idempotency key");
  });

  it("an unknown field is named", async () => {
    const r = await wfr(["launch", "invoiceIntake", "--input", "vendr=A"]);
    expect(r.code).toBe(EXIT.INVALID_INPUT);
    expect(r.stderr).toContain('no input "vendr"');
  });

  it("a file becomes an attachment", async () => {
    const pdf = join(fx.dir, "inv.pdf");
    writeFileSync(pdf, "%PDF-1.4 test");
    const r = await wfr([
      "launch",
      "invoiceIntake",
      "--input",
      "vendor_name=A",
      "--input",
      "amount=3",
      "--file",
      `invoice_pdf=${pdf}`,
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(EXIT.OK);
    const run = JSON.parse(r.stdout);
    const history = await fetch(
      `${fx.emulator.url}/_emulator/environments/production/runs/${run.run_id}`,
    );
    const record = JSON.stringify(await history.json());
    expect(record).toContain("inv.pdf");
  });

  it("the same key with a different request exits with IDEMPOTENCY_CONFLICT's code", async () => {
    const first = await wfr([
      "launch",
      "invoiceIntake",
      "--input",
      "vendor_name=A",
      "--input",
      "amount=1",
      "--idempotency-key",
      "k-conflict",
    ]);
    expect(first.code, first.stderr).toBe(EXIT.OK);
    const second = await wfr([
      "launch",
      "invoiceIntake",
      "--input",
      "vendor_name=B",
      "--input",
      "amount=1",
      "--idempotency-key",
      "k-conflict",
    ]);
    expect(second.code).toBe(EXIT.IDEMPOTENCY_CONFLICT);
    expect(second.stderr).toContain("IDEMPOTENCY_CONFLICT");
  });

  it("no key: exit 8 naming the variable; a wrong key: exit 8, key never printed", async () => {
    const none = await wfr(["launch", "invoiceIntake", "--input", "amount=1"], {
      env: { WFR_PRODUCTION_API_KEY: "" },
    });
    expect(none.code).toBe(EXIT.AUTH);
    expect(none.stderr).toContain("WFR_PRODUCTION_API_KEY");
    const wrong = await wfr(["runs", "get", "run_x"], {
      env: { WFR_PRODUCTION_API_KEY: "wrong-secret-123" },
    });
    expect(wrong.code).toBe(EXIT.AUTH);
    expect(wrong.stdout + wrong.stderr).not.toContain("wrong-secret-123");
  });

  it("the key from --api-key-file and from stdin", async () => {
    const keyFile = join(fx.dir, "key.txt");
    writeFileSync(keyFile, `${fx.key}\n`);
    const launched = await wfr([
      "launch",
      "invoiceIntake",
      "--input",
      "vendor_name=A",
      "--input",
      "amount=1",
      "--json",
    ]);
    const runId = JSON.parse(launched.stdout).run_id;
    const viaFile = await wfr(["runs", "get", runId, "--api-key-file", keyFile], {
      env: { WFR_PRODUCTION_API_KEY: "" },
    });
    expect(viaFile.code, viaFile.stderr).toBe(EXIT.OK);
    const viaStdin = await wfr(["runs", "get", runId, "--api-key-stdin"], {
      env: { WFR_PRODUCTION_API_KEY: "" },
      stdin: fx.key,
    });
    expect(viaStdin.code, viaStdin.stderr).toBe(EXIT.OK);
    expect(JSON.parse(viaStdin.stdout).run_id).toBe(runId);
  });
});

describe("runs", () => {
  it("get, watch (NDJSON), result, events for a successful run", async () => {
    const launched = await wfr([
      "launch",
      "invoiceIntake",
      "--input",
      "vendor_name=A",
      "--input",
      "amount=1",
      "--json",
    ]);
    const runId = JSON.parse(launched.stdout).run_id;
    const watch = await wfr(["runs", "watch", runId]);
    expect(watch.code, watch.stderr).toBe(EXIT.OK);
    const lines = watch.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.at(-1).status).not.toBe("waiting_for_human_live");
    expect(watch.stdout).not.toContain("\u001b");
    const result = await wfr(["runs", "result", runId]);
    expect(result.code).toBe(EXIT.OK);
    expect(JSON.parse(result.stdout).outputs?.invoice_id ?? result.stdout).toContain("INV-1");
    const events = await wfr(["runs", "events", runId, "--json"]);
    expect(events.code).toBe(EXIT.OK);
    expect(() => JSON.parse(events.stdout)).not.toThrow();
    const get = await wfr(["runs", "get", runId]);
    expect(JSON.parse(get.stdout).run_id).toBe(runId);
  });

  it("watch exits 6 at a checkpoint; answer --no-input answers it; watch then exits 0", async () => {
    const launched = await wfr(["launch", "paymentApproval", "--input", "amount=5000", "--json"]);
    const runId = JSON.parse(launched.stdout).run_id;
    const watch = await wfr(["runs", "watch", runId]);
    expect(watch.code, watch.stderr).toBe(EXIT.HUMAN_NEEDED);
    const last = JSON.parse(watch.stdout.trim().split("\n").at(-1) as string);
    expect(last.status).toBe("waiting_for_human_live");
    expect(last.human_action.reason).toBe("Amount above limit");
    const noAnswer = await wfr(["runs", "answer", runId, "--no-input"]);
    expect(noAnswer.code).toBe(EXIT.USAGE);
    const wrongCheckpoint = await wfr([
      "runs",
      "answer",
      runId,
      "--checkpoint",
      "cp_other",
      "--response",
      "yes",
    ]);
    expect(wrongCheckpoint.code).toBe(EXIT.HUMAN_WAIT_CONFLICT);
    const answer = await wfr([
      "runs",
      "answer",
      runId,
      "--checkpoint",
      last.human_action.checkpoint_id,
      "--response-json",
      '{"approved":true}',
    ]);
    expect(answer.code, answer.stderr).toBe(EXIT.OK);
    expect(answer.stderr).toContain("Approve the payment?");
    const after = await wfr(["runs", "watch", runId]);
    expect(after.code, after.stderr).toBe(EXIT.OK);
  });

  it("a failed run: watch exits 5, result exits 5", async () => {
    const launched = await wfr(["launch", "brokenPortal", "--json"]);
    const runId = JSON.parse(launched.stdout).run_id;
    const watch = await wfr(["runs", "watch", runId]);
    expect(watch.code).toBe(EXIT.RUN_FAILED);
    // The failure is said, with the error the run carries, not only the exit code.
    expect(watch.stderr).toMatch(new RegExp(`${runId} ended failed: \\w+`));
    const result = await wfr(["runs", "result", runId]);
    expect(result.code).toBe(EXIT.RUN_FAILED);
  });

  it("watch --timeout exits 7; its lines carry the current step", async () => {
    await adminPut(fx.emulator, "/environments/production/workflows/wf_invoice1/scenario", {
      steps: [
        { event: { type: "step.started", name: "book invoice" } },
        { wait_ms: 600000 },
        { succeed: {} },
      ],
    });
    const launched = await wfr([
      "launch",
      "invoiceIntake",
      "--input",
      "vendor_name=A",
      "--input",
      "amount=1",
      "--json",
    ]);
    const runId = JSON.parse(launched.stdout).run_id;
    const watch = await wfr(["runs", "watch", runId, "--timeout", "4"]);
    expect(watch.code, watch.stderr).toBe(EXIT.TIMEOUT);
    const steps = watch.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).step);
    expect(steps).toContain("book invoice");
    await fetch(
      `${fx.emulator.url}/_emulator/environments/production/workflows/wf_invoice1/scenario`,
      { method: "DELETE" },
    );
  });

  it("unknown run: exit 9", async () => {
    const r = await wfr(["runs", "get", "run_doesnotexist"]);
    expect(r.code).toBe(EXIT.NOT_FOUND);
  });

  it("recording is written atomically", async () => {
    const launched = await wfr([
      "launch",
      "invoiceIntake",
      "--input",
      "vendor_name=A",
      "--input",
      "amount=1",
      "--json",
    ]);
    const runId = JSON.parse(launched.stdout).run_id;
    await wfr(["runs", "watch", runId]);
    const out = join(fx.dir, "run.mp4");
    const r = await wfr(["runs", "recording", runId, "-o", out]);
    expect(r.code, r.stderr).toBe(EXIT.OK);
    const bytes = readFileSync(out);
    expect(bytes.subarray(4, 8).toString("latin1")).toBe("ftyp");
  });
});

describe("recording while RECORDING_PROCESSING", () => {
  it("waits the processing out and writes the MP4", async () => {
    await adminPut(fx.emulator, "/environments/production/workflows/wf_invoice1/scenario", {
      steps: [{ wait_ms: 100 }, { succeed: { outputs: { invoice_id: "INV-2" } } }],
      recording: { mode: "processing", processing_ms: 2500 },
    });
    try {
      const launched = await wfr([
        "launch",
        "invoiceIntake",
        "--input",
        "vendor_name=A",
        "--input",
        "amount=1",
        "--json",
      ]);
      const runId = JSON.parse(launched.stdout).run_id;
      expect((await wfr(["runs", "watch", runId])).code).toBe(EXIT.OK);
      const out = join(fx.dir, "processing.mp4");
      const r = await wfr(["runs", "recording", runId, "-o", out]);
      expect(r.code, r.stderr).toBe(EXIT.OK);
      expect(readFileSync(out).subarray(4, 8).toString("latin1")).toBe("ftyp");
    } finally {
      await fetch(
        `${fx.emulator.url}/_emulator/environments/production/workflows/wf_invoice1/scenario`,
        {
          method: "DELETE",
        },
      );
    }
  });
});

describe("help and exit codes", () => {
  it("every command has --help with examples", async () => {
    for (const cmd of [
      ["init"],
      ["schemas", "pull"],
      ["generate"],
      ["diff"],
      ["launch"],
      ["runs", "watch"],
      ["runs", "answer"],
      ["emulator"],
    ]) {
      const r = await wfr([...cmd, "--help"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("Examples:");
    }
  });
  it("exit-codes prints the table", async () => {
    const r = await wfr(["exit-codes"]);
    expect(r.stdout).toContain("IDEMPOTENCY_CONFLICT");
  });
});

describe("a workflow that is not enabled", () => {
  it("launch exits WORKFLOW_NOT_ENABLED (the server's 409), not a human-wait conflict", async () => {
    await adminPut(fx.emulator, "/environments/production/workflows/wf_invoice1/state", {
      state: "disabled",
    });
    try {
      const r = await wfr([
        "launch",
        "invoiceIntake",
        "--input",
        "vendor_name=A",
        "--input",
        "amount=1",
      ]);
      expect(r.code, r.stderr).toBe(EXIT.WORKFLOW_NOT_ENABLED);
      expect(r.stderr).toContain("WORKFLOW_NOT_ENABLED");
    } finally {
      await adminPut(fx.emulator, "/environments/production/workflows/wf_invoice1/state", {
        state: "enabled",
      });
    }
  });
});
