// docs/service-rules.md#limits: a body over the limit is refused with 413 BODY_TOO_LARGE. The
// refusal must reach a client that is still uploading: the server reads and discards the rest of
// the body before it lets the connection go (RFC 9112 §9.6), or the client meets a reset
// (EPIPE), which retry policies treat as a network error and upload again. Measured against the
// emulator in a process of its own, as a user runs it: in the test's own process, the client's
// upload and the server's reading share one thread and the race never shows.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));
const BODY_LIMIT = 37_748_736; // 36 MiB
const INVOICE = "wf_P7Qd2Lx9";

let child: ChildProcess;
let base = "";
let token = "";

beforeAll(async () => {
  child = spawn(process.execPath, [BIN, "--port", "0", "--host", "127.0.0.1"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = await new Promise<string>((ready, fail) => {
    let out = "";
    child.stdout?.on("data", (d) => {
      out += d;
      const found = /wfr-emulator listening on (\S+)/.exec(out)?.[1];
      if (found) ready(found);
    });
    child.once("exit", () => fail(new Error(`wfr-emulator exited: ${out}`)));
  });
  base = `${url}/production/api/v1/automations/${INVOICE}/runs`;
  const key = await fetch(`${url}/_emulator/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
  });
  token = String(((await key.json()) as { token: string }).token);
}, 60_000);

afterAll(async () => {
  if (child?.exitCode === null) {
    const closed = new Promise((r) => child.once("close", r));
    child.kill("SIGTERM");
    await closed;
  }
});

/** Sends `body` with fetch; the status and code it read, or the network error it met. */
async function launch(body: BodyInit, streamed = false): Promise<string> {
  try {
    const r = await fetch(base, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
      ...(streamed ? { duplex: "half" } : {}),
    } as RequestInit);
    return `${r.status} ${((await r.json()) as { code?: string }).code}`;
  } catch (error) {
    const cause = (error as Error).cause as { code?: string } | undefined;
    return `network error ${cause?.code ?? (error as Error).message}`;
  }
}

describe("a refused body's answer reaches the client", { timeout: 300_000 }, () => {
  it("a fetch client sending 37 MiB with a Content-Length reads 413 BODY_TOO_LARGE, 20 times out of 20", async () => {
    const body = new Uint8Array(BODY_LIMIT + 1024 * 1024).fill(0x61);
    const answers: string[] = [];
    for (let attempt = 0; attempt < 20; attempt++) answers.push(await launch(body));
    expect(answers).toEqual(Array(20).fill("413 BODY_TOO_LARGE"));
  });

  it("a paced 37 MiB stream (no Content-Length), still uploading when refused, reads the 413, 5 times out of 5", async () => {
    const chunk = new Uint8Array(256 * 1024).fill(0x61);
    const total = BODY_LIMIT + 1024 * 1024;
    const answers: string[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent >= total) return controller.close();
          // Paced like a slower link: the body is still being sent well after the refusal.
          if ((sent / chunk.length) % 16 === 0) await new Promise((r) => setTimeout(r, 20));
          controller.enqueue(chunk.slice());
          sent += chunk.length;
        },
      });
      answers.push(await launch(body, true));
    }
    expect(answers).toEqual(Array(5).fill("413 BODY_TOO_LARGE"));
  });

  it("the connection stays usable: a small launch after a refusal is accepted", async () => {
    expect(await launch(new Uint8Array(BODY_LIMIT + 1).fill(0x61))).toBe("413 BODY_TOO_LARGE");
    const ok = await launch(JSON.stringify({ inputs: {} }));
    expect(ok).not.toMatch(/^network error|^413/);
  });
});
