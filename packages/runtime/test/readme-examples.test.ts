// The README examples (root README.md "Using the runtime" and "Several
// instances", and every block of this package's README) are extracted and
// run against the real emulator, so they cannot drift from the API or from
// the runtime's signatures. `@wfr/store-postgres` is a memory stand-in here
// (the runtime cannot depend on a store package).
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
      '"@wfr/runtime/opentelemetry"',
      JSON.stringify(join(here, "../src/opentelemetry.js")),
    )
    // The index, the environment module and each workflow's module (`#wfr/...`: what a team's own
    // repository imports, through the alias `wfr init` writes) are all the one stand-in.
    .replaceAll(
      /"(?:@wfr\/generated|#wfr)\/production(?:\/\w+)?"/g,
      JSON.stringify(join(here, "support/generated-production.js")),
    )
    .replaceAll(
      '"@wfr/store-postgres"',
      JSON.stringify(join(here, "support/store-postgres-standin.js")),
    );
  // Import statements (one line or several) go to the top of the module; the rest runs inside.
  const importStatement = /^import [\s\S]*?;$/gm;
  const imports = mapped.match(importStatement) ?? [];
  const body = mapped.replace(importStatement, "").split("\n");
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

  it("packages/runtime/README.md: watching a run answers its checkpoints in the loop", async () => {
    await emu.setScenario(INVOICE_WORKFLOW_ID, TWO_CHECKPOINTS);
    const markdown = await readFile(join(here, "..", "README.md"), "utf8");
    const block = tsBlocks(markdown).find((code) => code.includes("wfr.watchRun("));
    expect(block).toBeDefined();
    const out = (await runBlock(
      "package-watch",
      block ?? "",
      [
        `import { createClient, file } from ${JSON.stringify(join(here, "../src/index.js"))};`,
        `import { workflows } from ${JSON.stringify(join(here, "support/generated-production.js"))};`,
        "export default async () => {",
        "const wfr = createClient({ baseUrl: process.env.WFR_TEST_BASE_URL!, apiKey: process.env.WFR_API_KEY! });",
        'const inputs = { vendor_name: "Northwind", amount: 5, invoice_pdf: file(new TextEncoder().encode("%PDF-1.4\\n%%EOF\\n"), { filename: "inv.pdf", mimeType: "application/pdf" }) };',
      ].join("\n"),
      "return { run };\n};",
    )) as { run: { run_id: string } };
    const { createClient } = await import("../src/index.js");
    const wfr = createClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey });
    expect(await wfr.getResult(out.run.run_id)).toMatchObject({
      state: "terminal",
      status: "succeeded",
    });
    const types = await events(out.run.run_id);
    expect(types.filter((type) => type === "human.answered")).toHaveLength(2);
  }, 120_000);

  it("packages/runtime/README.md: the launch-journal example launches once per intent", async () => {
    await emu.setScenario(INVOICE_WORKFLOW_ID, TWO_CHECKPOINTS);
    const markdown = await readFile(join(here, "..", "README.md"), "utf8");
    const block = tsBlocks(markdown).find((code) => code.includes("intent: { journal"));
    expect(block).toBeDefined();
    const prelude = [
      `import { createClient, file } from ${JSON.stringify(join(here, "../src/index.js"))};`,
      `import { workflows } from ${JSON.stringify(join(here, "support/generated-production.js"))};`,
      "export default async () => {",
      "const wfr = createClient({ baseUrl: process.env.WFR_TEST_BASE_URL!, apiKey: process.env.WFR_API_KEY! });",
      'const invoice = { id: "inv-77" };',
      'const inputs = { vendor_name: "Northwind", amount: 77, invoice_pdf: file(new TextEncoder().encode("%PDF-1.4\\n%%EOF\\n"), { filename: "inv.pdf", mimeType: "application/pdf" }) };',
    ].join("\n");
    const first = (await runBlock(
      "package-journal-1",
      block ?? "",
      prelude,
      "return { run };\n};",
    )) as {
      run: { run_id: string };
    };
    // The same intent again (as after a crash): the journal reads the run back, no second run.
    const again = (await runBlock(
      "package-journal-2",
      block ?? "",
      prelude,
      "return { run };\n};",
    )) as {
      run: { run_id: string };
    };
    expect(first.run.run_id).toMatch(/^run_/);
    expect(again.run.run_id).toBe(first.run.run_id);
  }, 120_000);

  it("packages/runtime/README.md: the callback receiver example confirms with the API and answers 200", async () => {
    await emu.setScenario(INVOICE_WORKFLOW_ID, {
      steps: [
        {
          succeed: {
            outputs: { invoice_id: "INV-9", total: 9, status: "booked", summary: "booked" },
          },
        },
      ],
      queue_ms: 10,
      start_ms: 10,
    });
    const markdown = await readFile(join(here, "..", "README.md"), "utf8");
    const block = tsBlocks(markdown).find((code) => code.includes("createCallbackHandler({"));
    expect(block).toBeDefined();
    const { createClient, file } = await import("../src/index.js");
    const wfr = createClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey });
    const run = await wfr.launch(INVOICE_WORKFLOW_ID, {
      inputs: {
        vendor_name: "Northwind",
        amount: 9,
        invoice_pdf: file(new TextEncoder().encode("%PDF-1.4\n%%EOF\n"), {
          filename: "inv.pdf",
          mimeType: "application/pdf",
        }),
      },
    });
    const done = await wfr.waitForRun(run.run_id, { initialIntervalMs: 20, maxIntervalMs: 100 });
    delete process.env.WFR_WEBHOOK_SECRET; // the example's verification is opt-in
    const { callbacks } = (await runBlock(
      "package-callbacks",
      block ?? "",
      [
        `import { createCallbackHandler, createClient, createMemoryEventStore } from ${JSON.stringify(join(here, "../src/index.js"))};`,
        "export default async () => {",
        "const wfr = createClient({ baseUrl: process.env.WFR_TEST_BASE_URL!, apiKey: process.env.WFR_API_KEY! });",
      ].join("\n"),
      "return { callbacks };\n};",
    )) as { callbacks: (request: Request) => Promise<Response> };
    const delivery = new Request("https://receiver.example.com/wfr", {
      method: "POST",
      body: JSON.stringify({ event_id: "evt_readme_1", type: "workflow.run.completed", run: done }),
    });
    const answer = await callbacks(delivery);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ received: true, acted: true });
  }, 120_000);

  it("root README: the shared-stores block (receiver and journaled launch) runs", async () => {
    await emu.setScenario(INVOICE_WORKFLOW_ID, TWO_CHECKPOINTS);
    const markdown = await readFile(join(repoRoot, "README.md"), "utf8");
    const section = markdown.slice(markdown.indexOf("## Several instances"));
    const [block] = tsBlocks(section);
    expect(block).toContain("openPostgresStores");
    const prelude = [
      `import { createCallbackHandler, createClient, file } from ${JSON.stringify(join(here, "../src/index.js"))};`,
      `import { workflows } from ${JSON.stringify(join(here, "support/generated-production.js"))};`,
      "export default async () => {",
      "const wfr = createClient({ baseUrl: process.env.WFR_TEST_BASE_URL!, apiKey: process.env.WFR_API_KEY! });",
      'const invoice = { id: "inv-shared-1" };',
      'const inputs = { vendor_name: "Northwind", amount: 12, invoice_pdf: file(new TextEncoder().encode("%PDF-1.4\\n%%EOF\\n"), { filename: "inv.pdf", mimeType: "application/pdf" }) };',
      "const onCompleted = async () => {};",
    ].join("\n");
    const { receiver, stores } = (await runBlock(
      "root-shared-stores",
      block ?? "",
      prelude,
      "return { receiver, stores };\n};",
    )) as {
      receiver: (request: Request) => Promise<Response>;
      stores: { launchJournal: { get(id: string): Promise<{ state: string } | undefined> } };
    };
    expect(typeof receiver).toBe("function");
    expect(await stores.launchJournal.get("inv-shared-1")).toMatchObject({ state: "acknowledged" });
  }, 120_000);

  it("packages/runtime/README.md: .withResponse() gives the data, the raw response and its request id", async () => {
    const markdown = await readFile(join(here, "..", "README.md"), "utf8");
    const block = tsBlocks(markdown).find((code) => code.includes(".withResponse();"));
    expect(block).toBeDefined();
    const { createClient, file } = await import("../src/index.js");
    const launched = await createClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey }).launch(
      INVOICE_WORKFLOW_ID,
      {
        inputs: {
          vendor_name: "R",
          amount: 1,
          invoice_pdf: file(new TextEncoder().encode("%PDF-1.4\n"), {
            filename: "r.pdf",
            mimeType: "application/pdf",
          }),
        },
      },
    );
    const out = (await runBlock(
      "package-with-response",
      block ?? "",
      `import { createClient } from ${JSON.stringify(join(here, "../src/index.js"))};\nexport default async () => {\nconst wfr = createClient({ baseUrl: process.env.WFR_TEST_BASE_URL!, apiKey: process.env.WFR_API_KEY! });\nconst runId = ${JSON.stringify(launched.run_id)};`,
      "return { run, data, response, requestId };\n};",
    )) as {
      run: { _requestId: string };
      data: { run_id: string };
      response: Response;
      requestId: string;
    };
    expect(out.data.run_id).toBe(launched.run_id);
    expect(out.response.status).toBe(200);
    expect(out.requestId).toMatch(/^req_/);
    expect(out.run._requestId).toMatch(/^req_/);
  });

  it("packages/runtime/README.md: the tracing setup runs and traces a call with no tracing option", async () => {
    const markdown = await readFile(join(here, "..", "README.md"), "utf8");
    const block = tsBlocks(markdown).find((code) => code.includes("setGlobalTracerProvider("));
    expect(block).toBeDefined();
    expect(block).not.toContain("tracing:");
    process.env.WFR_BASE_URL = emu.baseUrl;
    const out = (await runBlock(
      "package-tracing",
      block ?? "",
      "export default async () => {",
      [
        'const { SpanKind, trace: api } = await import("@opentelemetry/api");',
        'const tracer = api.getTracer("readme");',
        "let traceparent: string | undefined;",
        // The ConsoleSpanExporter prints each ended span with console.dir: collect the names.
        "const exported: string[] = [];",
        "const dir = console.dir;",
        "console.dir = (item: unknown) => { exported.push((item as { name: string }).name); };",
        "try {",
        '  await tracer.startActiveSpan("outer", async (span) => {',
        "    const carrier: Record<string, string> = {};",
        "    propagation.inject(context.active(), carrier);",
        "    traceparent = carrier.traceparent;",
        '    await wfr.getRun("run_missing").catch(() => undefined);',
        "    span.end();",
        "  });",
        "} finally {",
        "  console.dir = dir;",
        // Later test files share this module graph: leave no provider registered.
        "  trace.disable();",
        "  context.disable();",
        "  propagation.disable();",
        "}",
        "return { traceparent, exported, kind: SpanKind.CLIENT };",
        "};",
      ].join("\n"),
    )) as { traceparent: string | undefined; exported: string[] };
    expect(out.exported).toEqual(["GET /runs/{runId}", "outer"]);
    // The setup registered a provider, a context manager and the W3C propagator.
    expect(out.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });
});
