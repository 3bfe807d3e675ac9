// The generated environment's base URL: the definition's, unless the process names another in
// WFR_<ENV>_BASE_URL (an emulator on another port) — read when the module loads, no regeneration.
import { afterEach, expect, it, vi } from "vitest";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

it("environment.baseUrl is the definition's without WFR_SAMPLE_BASE_URL", async () => {
  vi.stubEnv("WFR_SAMPLE_BASE_URL", "");
  vi.resetModules();
  const { environment } = await import("@wfr/generated/sample");
  expect(environment.baseUrl).toBe("https://api.workflows.example.com/api/v1");
});

it("environment.baseUrl is WFR_SAMPLE_BASE_URL where the process has it", async () => {
  vi.stubEnv("WFR_SAMPLE_BASE_URL", "http://127.0.0.1:51234/sample/api/v1");
  vi.resetModules();
  const { environment } = await import("@wfr/generated/sample");
  expect(environment.baseUrl).toBe("http://127.0.0.1:51234/sample/api/v1");
});

it("@wfr/generated/sample/environment is the index's environment, through the package's exports", async () => {
  const own = await import("@wfr/generated/sample/environment");
  const index = await import("@wfr/generated/sample");
  expect(own.environment).toBe(index.environment);
  expect(own.environment.name).toBe("sample");
});
