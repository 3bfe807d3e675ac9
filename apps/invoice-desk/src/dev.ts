// `pnpm desk`: the emulator and the desk together, on free loopback ports,
// with a fresh key and operator; prints the URL and the sign-in.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator } from "@wfr/emulator";
import { startDesk } from "./desk.js";

const emulator = await startEmulator({ port: 0 });
const response = await fetch(`${emulator.url}/_emulator/keys`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
});
const { token } = (await response.json()) as { token: string };
const desk = await startDesk({
  baseUrl: `${emulator.url}/production/api/v1`,
  apiKey: token,
  pgliteDir: process.env.DESK_DATA ?? mkdtempSync(join(tmpdir(), "invoice-desk-")),
  port: Number(process.env.PORT ?? 4100),
  operator: { username: "operator", password: process.env.DESK_PASSWORD ?? "operator" },
  pollIntervalMs: 1_000,
});
console.log(
  `invoice desk:  ${desk.url}  (sign in as operator / ${process.env.DESK_PASSWORD ?? "operator"})`,
);
console.log(`emulator:      ${emulator.url}`);
console.log("Ctrl-C stops both.");
const stop = async () => {
  await desk.close();
  await emulator.close();
  process.exit(0);
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
