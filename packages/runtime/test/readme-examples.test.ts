// The README examples (root README.md "Using the runtime" and this package's
// README) are extracted and run against the real emulator, so they cannot
// drift from the API or from the runtime's signatures.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  INVOICE_WORKFLOW_ID,
  startTestEmulator,
  type TestEmulator,
  TWO_CHECKPOINTS,
} from "./support/emulator.js";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, "..", "..", "..");

function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
}

let emu: TestEmulator;
let workDir: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  process.env.WFR_TEST_BASE_URL = emu.baseUrl;
  process.env.WFR_API_KEY = emu.apiKey;
  workDir = await mkdtemp(join(here, ".readme-"));
});
afterAll(async () => {
  await emu.close();
  await rm(workDir, { recursive: true, force: true });
});

/** Writes the block as a module with the package imports mapped to this checkout, and runs it. */
async function runBlock(name: string, code: string, prelude: string, postlude: string) {
  const mapped = code
    .replaceAll('"@wfr/runtime"', JSON.stringify(join(here, "../src/index.js")))
    .replaceAll(
      '"@wfr/generated/production"',
      JSON.stringify(join(here, "support/generated-production.js")),
    );
  const imports = mapped.split("\n").filter((line) => line.startsWith("import "));
  const body = mapped.split("\n").filter((line) => !line.startsWith("import "));
  const path = join(workDir, `${name}.ts`);
  await writeFile(path, [...imports, prelude, ...body, postlude].join("\n"));
  const module = (await import(path)) as { default: () => Promise<Record<string, unknown>> };
  return module.default === undefined ? {} : await module.default();
}

const events = async (runId: string) => {
  const response = await fetch(`${emu.baseUrl}/runs/${runId}/events`, {
    headers: { authorization: `Bearer ${emu.apiKey}` },
  });
  return ((await response.json()) as { events: { type: string }[] }).events.map((e) => e.type);
};

describe("README examples run against the emulator", () => {
  it("root README: key derived before launch, every checkpoint answered once, typed result", async () => {
    await emu.setScenario(INVOICE_WORKFLOW_ID, TWO_CHECKPOINTS);
    const markdown = await readFile(join(repoRoot, "README.md"), "utf8");
    const section = markdown.slice(markdown.indexOf("## Using the runtime"));
    const [block] = tsBlocks(section);
    expect(block).toContain("idempotencyKey");
    const out = (await runBlock(
      "root",
      block ?? "",
      'const pdfBytes = new TextEncoder().encode("%PDF-1.4\\n%%EOF\\n");\nexport default async () => {',
      "return { run, result, answered };\n};",
    )) as {
      run: { run_id: string; idempotencyKey: string };
      result: { state: string; status: string };
      answered: string[];
    };
    expect(out.run.idempotencyKey).toBe("invoice-intake:o-1042");
    expect(out.result).toMatchObject({ state: "terminal", status: "succeeded" });
    expect(out.answered).toHaveLength(2);
    const types = await events(out.run.run_id);
    expect(types.filter((type) => type === "human.answered")).toHaveLength(2);
  }, 120_000);

  it("packages/runtime/README.md: the example and the multi-checkpoint loop", async () => {
    await emu.setScenario(INVOICE_WORKFLOW_ID, TWO_CHECKPOINTS);
    const markdown = await readFile(join(here, "..", "README.md"), "utf8");
    // The first block is the example; the loop is the block that handles several checkpoints.
    const blocks = tsBlocks(markdown);
    const example = blocks[0];
    const loop = blocks.find((block) => block.includes("answeredCheckpointIds"));
    // The example's waitForResult stops at the first checkpoint: "waiting for a person".
    const first = (await runBlock(
      "package-example",
      example ?? "",
      'const bytes = new TextEncoder().encode("%PDF-1.4\\n%%EOF\\n");\nexport default async () => {',
      "return { run, result };\n};",
    )) as { run: { run_id: string }; result: { state: string; status: string } };
    expect(first.result).toMatchObject({ state: "pending", status: "waiting_for_human_live" });
    expect(loop).toContain("answeredCheckpointIds");
    const { createClient } = await import("../src/index.js");
    const wfr = createClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey });
    await runBlock(
      "package-loop",
      loop ?? "",
      `import { createClient } from ${JSON.stringify(join(here, "../src/index.js"))};\nexport default async () => {\nconst wfr = createClient({ baseUrl: process.env.WFR_TEST_BASE_URL!, apiKey: process.env.WFR_API_KEY! });\nconst runId = ${JSON.stringify(first.run.run_id)};\nconst askPerson = async (_run: unknown) => ({ approved: true });`,
      "return {};\n};",
    );
    const result = await wfr.getResult(first.run.run_id);
    expect(result).toMatchObject({ state: "terminal", status: "succeeded" });
    const types = await events(first.run.run_id);
    expect(types.filter((type) => type === "human.answered")).toHaveLength(2);
  }, 120_000);
});
