// `pnpm batch-demo`: the emulator on a free port, a temporary repository with
// its definition and a key, and batch-launch on the sample CSV shipped here.
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startEmulator } from "@wfr/emulator";

const sample = fileURLToPath(new URL("../samples/tickets.csv", import.meta.url));
const main = fileURLToPath(new URL("./main.js", import.meta.url));
const emulator = await startEmulator({ port: 0 });
const repo = mkdtempSync(join(tmpdir(), "batch-demo-"));
try {
  const key = await fetch(`${emulator.url}/_emulator/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
  });
  const { token } = (await key.json()) as { token: string };
  mkdirSync(join(repo, "schemas", "production"), { recursive: true });
  writeFileSync(
    join(repo, "schemas", "production", "openapi.json"),
    await (await fetch(`${emulator.url}/production/api-docs/openapi.json`)).text(),
  );
  writeFileSync(
    join(repo, "wfr.config.json"),
    JSON.stringify({
      environments: [
        {
          name: "production",
          baseUrl: `${emulator.url}/production/api/v1`,
          apiKeyEnv: "WFR_PRODUCTION_API_KEY",
        },
      ],
    }),
  );
  copyFileSync(sample, join(repo, "tickets.csv"));
  console.error(`batch-demo: emulator ${emulator.url}, repository ${repo}`);
  // The launcher runs as its own process, as a user would run it; the emulator serves it from here.
  const code = await new Promise<number | null>((resolve) => {
    const launcher = spawn(
      process.execPath,
      [main, "tickets.csv", "--workflow", "Draft customer reply"],
      {
        cwd: repo,
        env: { ...process.env, WFR_PRODUCTION_API_KEY: token },
        stdio: "inherit",
      },
    );
    launcher.once("exit", resolve);
  });
  process.exitCode = code ?? 1;
} finally {
  await emulator.close();
  rmSync(repo, { recursive: true, force: true });
}
