// `wfr callbacks listen` as a child process: deliveries signed with the
// emulator's own Standard Webhooks signer, a tampered one, a duplicate, and
// forwarding to a loopback server.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signWebhook } from "@wfr/emulator";
import { expect, it, onTestFinished } from "vitest";
import { BIN } from "../../harness.js";

it("prints type, run, event_id, signature and dedupe verdicts, and forwards only what it accepted", async () => {
  const dir = mkdtempSync(join(tmpdir(), "wfr-cb-"));
  // Runs after the test's own finally, which waits for the listener to exit.
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const secret = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`;
  writeFileSync(join(dir, "whsec"), secret);
  const received: string[] = [];
  const target = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      received.push(`${req.headers["webhook-id"]} ${body.length}`);
      res.end("ok");
    });
  });
  await new Promise<void>((r) => target.listen(0, "127.0.0.1", () => r()));
  const targetPort = (target.address() as { port: number }).port;
  const child = spawn(
    process.execPath,
    [
      BIN,
      "callbacks",
      "listen",
      "--port",
      "0",
      "--webhook-secret-file",
      join(dir, "whsec"),
      "--forward-to",
      `http://127.0.0.1:${targetPort}/cb`,
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "" } },
  );
  let stdout = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  const port = await new Promise<number>((resolvePort) => {
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
      const m = /127\.0\.0\.1:(\d+)/.exec(stderr);
      if (m) resolvePort(Number(m[1]));
    });
  });
  try {
    const body = JSON.stringify({
      type: "workflow.run.completed",
      event_id: "evt_1",
      run: { run_id: "run_1" },
    });
    const ts = Math.floor(Date.now() / 1000);
    const send = (sig: string, payload = body) =>
      fetch(`http://127.0.0.1:${port}/`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "webhook-id": "evt_1",
          "webhook-timestamp": String(ts),
          "webhook-signature": sig,
        },
        body: payload,
      });
    const good = signWebhook(secret, "evt_1", ts, body);
    expect((await send(good)).status).toBe(200);
    expect((await send(good)).status).toBe(200);
    expect((await send(good, body.replace("run_1", "run_2"))).status).toBe(401);
    const lines = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({
      type: "workflow.run.completed",
      run_id: "run_1",
      event_id: "evt_1",
      signature: "valid",
      dedupe: "first",
      forwarded: 200,
    });
    expect(lines[1]).toMatchObject({ signature: "valid", dedupe: "duplicate" });
    expect(lines[2]).toMatchObject({
      signature: "invalid",
      run_id: "run_2",
      forwarded: "not forwarded: signature invalid",
    });
    // An unsigned delivery is refused and not forwarded either.
    const unsigned = await fetch(`http://127.0.0.1:${port}/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: body.replace("run_1", "run_3"),
    });
    expect(unsigned.status).toBe(401);
    // The two accepted deliveries reached the target; the rejected ones did not.
    expect(received).toEqual([`evt_1 ${body.length}`, `evt_1 ${body.length}`]);
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("close", r));
    await new Promise((r) => target.close(r));
  }
});
