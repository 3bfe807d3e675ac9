// `wfr launch` through the built bin against the emulator: values parsed by declared type, the
// idempotency key printed first, files as attachments, and the server's refusals as exit codes.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { adminPut, usePulledFixture } from "../harness.js";

const fx = usePulledFixture();
const { wfr } = fx;

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
