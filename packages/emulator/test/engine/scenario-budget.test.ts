// Scenarios and recorded runs have a budget (docs/limits.md): at most MAX_SCENARIO_STEPS steps,
// a recorded-run file at most MAX_RECORDED_RUN_BYTES, refused by its size before it is read.
// Each is tested at ten times its budget: a typed error naming the limit, nothing replayed.
import { execFileSync, fork } from "node:child_process";
import {
  closeSync,
  createWriteStream,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { filler, MiB, memoryTarget, peakGrowth } from "@wfr/test-servers";
import { afterAll, describe, expect, it } from "vitest";
import { parseScenario, ScenarioError } from "../../src/engine/scenario.js";
import {
  CatalogError,
  MAX_RECORDED_RUN_BYTES,
  MAX_SCENARIO_STEPS,
  RECORDED_RUN_FORMAT,
  RecordedRunError,
  readRecordedRunFile,
  startEmulator,
} from "../../src/index.js";
import { Harness, INVOICE } from "../conformance/support.js";

const dir = mkdtempSync(join(tmpdir(), "wfr-scenario-budget-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const steps = (n: number) => Array.from({ length: n }, () => ({ wait_ms: 1 }));

describe("scenario budget", () => {
  it(`a scenario of ${MAX_SCENARIO_STEPS} steps is read; ten times as many is refused naming the limit`, () => {
    expect(parseScenario({ steps: steps(MAX_SCENARIO_STEPS) }).steps).toHaveLength(
      MAX_SCENARIO_STEPS,
    );
    expect(() => parseScenario({ steps: steps(10 * MAX_SCENARIO_STEPS) })).toThrow(ScenarioError);
    expect(() => parseScenario({ steps: steps(10 * MAX_SCENARIO_STEPS) })).toThrow(/at most 10000/);
  });

  it("the admin API refuses such a scenario with 400, and the workflow keeps the one it had", async () => {
    const h = await Harness.start();
    try {
      const path = `/environments/production/workflows/${INVOICE}/scenario`;
      expect((await h.admin("PUT", path, { steps: [{ succeed: {} }] })).status).toBeLessThan(300);
      const refused = await h.admin("PUT", path, { steps: steps(10 * MAX_SCENARIO_STEPS) });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain("at most 10000");
    } finally {
      await h.close();
    }
  });

  it("a catalog whose workflow has ten times the steps is refused naming the workflow and the limit: the emulator does not start (an object, a JSON file)", async () => {
    const catalog = {
      environments: {
        production: {
          workflows: [
            {
              id: "wf_fine",
              name: "Fine",
              inputs: { type: "object" },
              scenario: { steps: steps(10) },
            },
            {
              id: "wf_long",
              name: "Long",
              inputs: { type: "object" },
              scenario: { steps: steps(10 * MAX_SCENARIO_STEPS) },
            },
          ],
        },
      },
    };
    const file = join(dir, "catalog.json");
    writeFileSync(file, JSON.stringify(catalog));
    for (const given of [catalog, file]) {
      const refused = await startEmulator({ port: 0, catalog: given }).then(
        async (started) => {
          await started.close();
          return undefined;
        },
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(CatalogError);
      expect((refused as Error).message).toMatch(
        /environments\.production\.workflows\[1\]\.scenario: scenario\.steps has 100000 steps; at most 10000 /,
      );
    }
  });

  it("a recorded-run file ten times the size budget is refused by its size, unread", async () => {
    const file = join(dir, "huge.json");
    // Sparse: the size is on record, nothing to read (it is never read).
    const fd = openSync(file, "w");
    closeSync(fd);
    const { truncateSync } = await import("node:fs");
    truncateSync(file, 10 * MAX_RECORDED_RUN_BYTES);
    await expect(readRecordedRunFile(file)).rejects.toBeInstanceOf(RecordedRunError);
    await expect(readRecordedRunFile(file)).rejects.toThrow(/at most 16777216 bytes/);
  });

  it("a recorded-run file whose scenario has ten times the steps is refused naming the file", async () => {
    const file = join(dir, "long.json");
    writeFileSync(
      file,
      JSON.stringify({
        format: RECORDED_RUN_FORMAT,
        environment: "production",
        workflow_id: INVOICE,
        scenario: { steps: steps(10 * MAX_SCENARIO_STEPS) },
      }),
    );
    await expect(readRecordedRunFile(file)).rejects.toThrow(
      /long\.json: scenario: .*at most 10000/,
    );
  });
});

describe("a recorded-run file whose size says nothing (a pipe, a device)", () => {
  it("ten times the budget through a pipe is refused at the first byte over it, in a reader process whose peak grows under twice the budget", async () => {
    const fifo = join(dir, "recorded-run.fifo");
    execFileSync("mkfifo", [fifo]);
    // The reader is a process of its own (as `wfr emulator --scenario` or a test replaying a
    // file is), so its peak memory is the read's.
    const entry = new URL("../../dist/index.js", import.meta.url).href;
    const reader = fork("--input-type=module", [], {
      execArgv: [
        "--input-type=module",
        "-e",
        `const { readRecordedRunFile } = await import(${JSON.stringify(entry)});
           process.on("message", async (file) => {
             try { await readRecordedRunFile(file); process.send("read"); }
             catch (error) { process.send(error.constructor.name + ": " + error.message); }
           });
           process.send("ready");`,
      ],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    try {
      await new Promise((resolve) => reader.once("message", resolve));
      const { result, growth } = await peakGrowth(reader.pid as number, async () => {
        const answer = new Promise<string>((resolve) => reader.once("message", resolve));
        reader.send(fifo);
        const out = createWriteStream(fifo);
        out.on("error", () => {}); // EPIPE once the reader has refused and closed it
        const chunks = filler(10 * MAX_RECORDED_RUN_BYTES);
        const pump = (): void => {
          for (let next = chunks.next(); !next.done; next = chunks.next())
            if (!out.write(next.value)) return void out.once("drain", pump);
          out.end();
        };
        pump();
        const text = await answer;
        out.destroy();
        return text;
      });
      expect(result).toMatch(/^RecordedRunError: .*recorded-run\.fifo: more than 16777216 bytes/);
      expect(growth / MiB).toBeLessThan(memoryTarget(MAX_RECORDED_RUN_BYTES) / MiB);
    } finally {
      reader.kill();
    }
  }, 120_000);
});
