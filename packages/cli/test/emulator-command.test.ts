import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { BIN } from "./harness.js";

it("wfr emulator prints base URLs and a working key, and stops on SIGTERM", async () => {
  const child = spawn(process.execPath, [BIN, "emulator", "--port", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "" },
  });
  let stdout = "";
  const ready = new Promise<void>((resolveReady) => {
    child.stdout.on("data", (d) => {
      stdout += d;
      if (/staging:[\s\S]*key \(emulator only\)/.test(stdout)) resolveReady();
    });
  });
  try {
    await ready;
    const base = /production: (http:\/\/127\.0\.0\.1:\d+\/production\/api\/v1)/.exec(stdout)?.[1];
    const key = /production:[\s\S]*?key \(emulator only\): (\S+)/.exec(stdout)?.[1];
    expect(base).toBeDefined();
    expect(key).toBeDefined();
    const response = await fetch(`${base}/runs/run_missing`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(404);
  } finally {
    child.kill("SIGTERM");
  }
  const code = await new Promise((r) => child.once("close", r));
  expect(code).toBe(0);
});
