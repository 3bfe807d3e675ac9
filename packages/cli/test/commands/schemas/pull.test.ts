// `wfr schemas pull` through the built bin against the emulator: written, --check, unknown environment.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../../src/exit-codes.js";
import { runWfr, usePulledFixture } from "../../harness.js";

const fx = usePulledFixture();
const { wfr } = fx;

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

  it("WFR_PRODUCTION_BASE_URL reaches the emulator on another port; the committed file and --check keep the configured URL", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wfr-base-url-"));
    // The configured port has nothing listening: only the override reaches the emulator.
    const configured = "http://127.0.0.1:9/production/api/v1";
    writeFileSync(
      join(dir, "wfr.config.json"),
      JSON.stringify({
        environments: [
          { name: "production", baseUrl: configured, apiKeyEnv: "WFR_PRODUCTION_API_KEY" },
        ],
      }),
    );
    const env = { ...fx.env, WFR_PRODUCTION_BASE_URL: `${fx.emulator.url}/production/api/v1` };
    try {
      const pulled = await runWfr(["schemas", "pull"], { cwd: dir, env });
      expect(pulled.code, pulled.stderr).toBe(EXIT.OK);
      const written = JSON.parse(
        readFileSync(join(dir, "schemas/production/openapi.json"), "utf8"),
      );
      expect(written.servers[0].url).toBe(configured);
      const checked = await runWfr(["schemas", "pull", "--check"], { cwd: dir, env });
      expect(checked.code, checked.stdout + checked.stderr).toBe(EXIT.OK);
      const launched = await runWfr(
        ["launch", "invoiceIntake", "--input", "vendor_name=A", "--input", "amount=1"],
        { cwd: dir, env },
      );
      expect(launched.code, launched.stderr).toBe(EXIT.OK);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
