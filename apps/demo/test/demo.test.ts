// The demo app against the real emulator in-process: a workflow with two
// checkpoints, each answered exactly once by the loop the root README shows.
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningEmulator, startEmulator } from "@wfr/emulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENVIRONMENT, prepareEmulator } from "../src/demo-scenario.js";
import { runInvoiceDemo } from "../src/invoice-demo.js";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, "..", "..", "..");

let emulator: RunningEmulator;
let apiKey: string;
let baseUrl: string;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, host: "127.0.0.1", clock: "real" });
  apiKey = await prepareEmulator(emulator.url);
  baseUrl = `${emulator.url}/${ENVIRONMENT}/api/v1`;
});
afterAll(async () => {
  await emulator.close();
});

/** Code lines with indentation and blank lines dropped, so a region and a README block compare. */
const codeLines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");

describe("demo", () => {
  it("answers each of the two checkpoints once (a new checkpoint_id is a new wait) and prints the typed result", async () => {
    const lines: string[] = [];
    const { outputs, runId, answered } = await runInvoiceDemo({
      baseUrl,
      apiKey,
      log: (line) => lines.push(line),
    });
    expect(answered).toHaveLength(2);
    expect(new Set(answered).size).toBe(2);
    expect(typeof outputs.total).toBe("number");
    const events = await fetch(`${baseUrl}/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const types = ((await events.json()) as { events: { type: string }[] }).events.map(
      (event) => event.type,
    );
    // Each checkpoint answered exactly once: no repeated answers while the first was accepted.
    expect(types.filter((type) => type === "human.answered")).toHaveLength(2);
    expect(lines.some((line) => line.startsWith("answered 2 checkpoint(s)"))).toBe(true);
    expect(lines.some((line) => line.startsWith("succeeded: invoice"))).toBe(true);
  });

  it("the root README's checkpoint loop is the demo's, line for line", async () => {
    const demo = await readFile(join(here, "..", "src", "invoice-demo.ts"), "utf8");
    const region = /\/\/ #region checkpoint-loop\n([\s\S]*?)\/\/ #endregion checkpoint-loop/.exec(
      demo,
    )?.[1];
    expect(region).toBeDefined();
    const loop = codeLines(region ?? "");
    expect(loop[0]).toBe("const answered: string[] = [];");
    expect(loop.at(-1)).toBe("}");
    const readme = await readFile(join(repoRoot, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## Using the runtime"));
    const block = codeLines(/```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? "");
    const start = block.indexOf(loop[0] ?? "");
    expect(start).toBeGreaterThanOrEqual(0);
    expect(block.slice(start, start + loop.length)).toEqual(loop);
  });
});
