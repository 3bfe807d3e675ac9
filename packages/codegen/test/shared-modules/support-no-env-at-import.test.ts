// Generated code imports with no permission: Deno without `--allow-env` throws `NotCapable` on
// any read of `process.env`, so the base-URL override is read when a client is created, and a
// refused read means "not set". A child process stands in for Deno: its `process.env` throws on
// every read but Node's own loader's (NODE_*), and counts them.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import { cleanupTempDirs, copyExamples, projectDir } from "../helpers.js";

afterAll(cleanupTempDirs);

interface Report {
  readsAtImport: number;
  baseUrl: string;
  readsAfterUse: number;
}

function importRefusingEnv(index: string, workflow: string): Report {
  const script = `
    const counter = { reads: 0 };
    const real = process.env;
    // Node's own module loader reads its settings (NODE_*, WATCH_REPORT_DEPENDENCIES); the rest is refused.
    const refuse = (key) => {
      if (typeof key === "string" && (key.startsWith("NODE_") || key === "WATCH_REPORT_DEPENDENCIES")) return false;
      counter.reads++;
      throw new Error("NotCapable: Requires env access to " + String(key));
    };
    const refusing = new Proxy(real, {
      get(target, key) { refuse(key); return target[key]; },
      has(target, key) { refuse(key); return key in target; },
      ownKeys() { counter.reads++; throw new Error("NotCapable: Requires env access"); },
    });
    Object.defineProperty(process, "env", { value: refusing, configurable: true });
    const mod = await import(${JSON.stringify(pathToFileURL(index).href)});
    await import(${JSON.stringify(pathToFileURL(workflow).href)});
    const readsAtImport = counter.reads;
    const baseUrl = mod.environment.baseUrl;
    process.stdout.write(JSON.stringify({ readsAtImport, baseUrl, readsAfterUse: counter.reads }));
  `;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  return JSON.parse(out) as Report;
}

describe("generated code reads no environment variable at import", () => {
  it("imports the index and a workflow module without touching process.env; baseUrl then falls back to the definition's", () => {
    const dir = projectDir();
    generate({ schemas: copyExamples(), out: join(dir, "gen") });
    const report = importRefusingEnv(
      join(dir, "gen", "sample", "index.js"),
      join(dir, "gen", "sample", "invoiceIntake.js"),
    );
    expect(report.readsAtImport).toBe(0);
    expect(report.baseUrl).toBe("https://api.workflows.example.com/api/v1");
    expect(report.readsAfterUse).toBeGreaterThan(0);
  });

  it("the override is read at use, not frozen at import", async () => {
    const dir = projectDir();
    generate({ schemas: copyExamples(), out: join(dir, "gen") });
    const mod = (await import(pathToFileURL(join(dir, "gen", "sample", "index.js")).href)) as {
      environment: { baseUrl: string };
    };
    process.env.WFR_SAMPLE_BASE_URL = "http://127.0.0.1:9/api/v1";
    try {
      expect(mod.environment.baseUrl).toBe("http://127.0.0.1:9/api/v1");
    } finally {
      delete process.env.WFR_SAMPLE_BASE_URL;
    }
    expect(mod.environment.baseUrl).toBe("https://api.workflows.example.com/api/v1");
  });
});
