// `wfr runs relaunch`: a new run of the same workflow with the recorded inputs and edits; inputs from
// the emulator's run history or --inputs; attachment bytes always given again.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../../src/exit-codes.js";
import { type Fixture, runWfr, startFixture } from "../../harness.js";

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
  expect((await runWfr(["schemas", "pull"], { cwd: fx.dir, env: fx.env })).code).toBe(0);
});
afterAll(async () => {
  await fx?.close();
});

const wfr = (args: string[]) => runWfr(args, { cwd: fx.dir, env: fx.env });
const history = async (runId: string) =>
  (await (
    await fetch(`${fx.emulator.url}/_emulator/environments/production/runs/${runId}`)
  ).json()) as {
    inputs: Record<string, unknown>;
    metadata: Record<string, unknown>;
  };

async function launch(args: string[]): Promise<string> {
  const r = await wfr(["launch", "invoiceIntake", ...args, "--json"]);
  expect(r.code, r.stderr).toBe(EXIT.OK);
  return JSON.parse(r.stdout).run_id as string;
}

describe("runs relaunch", () => {
  it("launches a new run with the recorded inputs, the edits and the run's metadata", async () => {
    const metadata = join(fx.dir, "meta.json");
    writeFileSync(metadata, JSON.stringify({ order: "o-9" }));
    const first = await launch([
      "--input",
      "vendor_name=Acme",
      "--input",
      "amount=12",
      "--metadata",
      metadata,
    ]);
    const r = await wfr(["runs", "relaunch", first, "--input", "amount=13", "--json"]);
    expect(r.code, r.stderr).toBe(EXIT.OK);
    expect(r.stderr).toContain(`relaunching ${first}`);
    const second = JSON.parse(r.stdout).run_id as string;
    expect(second).not.toBe(first);
    const again = await history(second);
    expect(again.inputs).toMatchObject({ vendor_name: "Acme", amount: 13 });
    expect(again.metadata).toEqual({ order: "o-9" });
  });

  it("asks for a file input again: the service never gives back attachment bytes", async () => {
    const pdf = join(fx.dir, "inv.pdf");
    writeFileSync(pdf, "%PDF-1.4\n");
    const first = await launch([
      "--input",
      "vendor_name=A",
      "--input",
      "amount=1",
      "--file",
      `invoice_pdf=${pdf}`,
    ]);
    const missing = await wfr(["runs", "relaunch", first]);
    expect(missing.code).toBe(EXIT.USAGE);
    expect(missing.stderr).toContain("--file invoice_pdf=<path>");
    const given = await wfr(["runs", "relaunch", first, "--file", `invoice_pdf=${pdf}`, "--json"]);
    expect(given.code, given.stderr).toBe(EXIT.OK);
  });

  it("takes --inputs where the environment does not give inputs back", async () => {
    const first = await launch(["--input", "vendor_name=A", "--input", "amount=1"]);
    const file = join(fx.dir, "inputs.json");
    writeFileSync(file, JSON.stringify({ vendor_name: "From my journal", amount: 5 }));
    const r = await wfr(["runs", "relaunch", first, "--inputs", file, "--json"]);
    expect(r.code, r.stderr).toBe(EXIT.OK);
    expect((await history(JSON.parse(r.stdout).run_id)).inputs).toMatchObject({
      vendor_name: "From my journal",
      amount: 5,
    });
  });
});

describe("emulatorRecordedInputs", () => {
  it("is null for a service that is not the emulator (404) and for one that cannot be reached", async () => {
    const { createServer } = await import("node:http");
    const { emulatorRecordedInputs } = await import("../../../src/commands/runs/relaunch.js");
    const server = createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      expect(
        await emulatorRecordedInputs(
          `http://127.0.0.1:${port}/production/api/v1`,
          "production",
          "run_1",
        ),
      ).toBeNull();
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    expect(
      await emulatorRecordedInputs(
        `http://127.0.0.1:${port}/production/api/v1`,
        "production",
        "run_1",
      ),
    ).toBeNull();
    expect(await emulatorRecordedInputs("not a url", "production", "run_1")).toBeNull();
  });
});
