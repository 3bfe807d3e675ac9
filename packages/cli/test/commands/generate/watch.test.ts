// `wfr generate --watch` through the built bin: generates at start and after each saved change under
// schemas/, reports a broken definition and keeps watching, and stops cleanly on SIGTERM.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { watchGenerate } from "../../../src/commands/generate/watch.js";
import { BIN } from "../../harness.js";

const SAMPLES = resolve(fileURLToPath(import.meta.url), "../../../../../../schemas");
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "wfr-watch-"));
  made.push(dir);
  writeFileSync(
    join(dir, "wfr.config.json"),
    JSON.stringify({
      schemas: "schemas",
      generatedOut: "generated/src",
      environments: [
        { name: "sample", baseUrl: "http://127.0.0.1:9/api/v1", apiKeyEnv: "WFR_KEY" },
      ],
    }),
  );
  cpSync(join(SAMPLES, "sample"), join(dir, "schemas", "sample"), { recursive: true });
  return dir;
}

/** Resolves when the output so far matches `pattern` `count` times. */
function waitFor(read: () => string, pattern: RegExp, count: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if ((read().match(new RegExp(pattern.source, "g")) ?? []).length >= count) resolve();
      else setTimeout(check, 25);
    };
    check();
  });
}

describe("wfr generate --watch", () => {
  it("regenerates after a saved change, survives a broken definition, and stops on SIGTERM", async () => {
    const dir = project();
    const definition = join(dir, "schemas", "sample", "openapi.json");
    const child = spawn(process.execPath, [BIN, "generate", "--watch"], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "" },
    });
    let output = "";
    child.stdout.on("data", (d) => {
      output += d;
    });
    child.stderr.on("data", (d) => {
      output += d;
    });
    const read = () => output;
    const generated = /generated; waiting for changes/;
    try {
      await waitFor(read, generated, 1);
      const types = join(dir, "generated", "src", "sample", "invoiceIntake.types.d.ts");
      expect(existsSync(types)).toBe(true);

      const doc = JSON.parse(readFileSync(definition, "utf8"));
      const inputs = doc.components.schemas.Workflow_wf_P7Qd2Lx9_Inputs;
      inputs.properties.purchase_order = { type: "string", "x-input-type": "text" };
      writeFileSync(definition, JSON.stringify(doc, null, 2));
      await waitFor(read, generated, 2);
      expect(readFileSync(types, "utf8")).toContain("purchase_order");

      writeFileSync(definition, "{ not json");
      await waitFor(read, /could not be used; fix it and save again/, 1);
      expect(child.exitCode).toBeNull();

      writeFileSync(definition, JSON.stringify(doc, null, 2));
      await waitFor(read, generated, 3);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await new Promise((r) => child.once("close", r))).toBe(0);
    expect(output).toContain("stopped");
  });

  it("refuses --watch with --check", async () => {
    const dir = project();
    const child = spawn(process.execPath, [BIN, "generate", "--watch", "--check"], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "" },
    });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    expect(await new Promise((r) => child.once("close", r))).toBe(2);
    expect(stderr).toContain("--watch and --check do not go together");
  });
});

describe("watchGenerate", () => {
  it("sees a change saved while the first generation runs (it watches before it generates)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wfr-watch-unit-"));
    made.push(dir);
    const lines: string[] = [];
    let runs = 0;
    let stop: () => void = () => {};
    const stopped = new Promise<void>((r) => {
      stop = r;
    });
    const watching = watchGenerate({
      schemas: dir,
      debounceMs: 50,
      log: (line) => lines.push(line),
      stop: stopped,
      generateOnce: async () => {
        runs += 1;
        // A save that lands before the first "waiting for changes" line.
        if (runs === 1) writeFileSync(join(dir, "early.json"), "{}");
        return 0;
      },
    });
    await waitFor(() => lines.join("\n"), /generated; waiting/, 2);
    stop();
    expect(await watching).toBe(0);
    expect(runs).toBe(2);
    expect(lines.join("\n")).toContain("early.json changed");
  });

  it("makes one generation of a burst of changes, never two at once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wfr-watch-unit-"));
    made.push(dir);
    let running = 0;
    let most = 0;
    let runs = 0;
    const lines: string[] = [];
    let stop: () => void = () => {};
    const stopped = new Promise<void>((r) => {
      stop = r;
    });
    const watching = watchGenerate({
      schemas: dir,
      debounceMs: 50,
      log: (line) => lines.push(line),
      stop: stopped,
      generateOnce: async () => {
        running += 1;
        runs += 1;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 30));
        running -= 1;
        return 0;
      },
    });
    await waitFor(() => lines.join("\n"), /generated; waiting/, 1);
    for (let i = 0; i < 10; i += 1) writeFileSync(join(dir, `d${i % 2}.json`), String(i));
    await waitFor(() => lines.join("\n"), /generated; waiting/, 2);
    stop();
    expect(await watching).toBe(0);
    expect(runs).toBe(2);
    expect(most).toBe(1);
    expect(lines.join("\n")).toContain("d0.json, d1.json changed");
  });
});
