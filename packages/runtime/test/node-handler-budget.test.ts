// A callback receiver is public: an unsigned body far over the handler's limit must cost the
// limit, not its size. toNodeHandler hands the body to the handler as a stream (the callback
// handler reads 1 MiB, then answers 413) and discards what is left, so the receiver's peak
// memory does not follow the body. Measured in a receiver process of its own, as the Express and
// Fastify examples run it, at ten times the limit (docs/limits.md): its peak resident memory from
// /proc (`@wfr/test-servers`, budget-probe.ts).
import { type ChildProcess, fork } from "node:child_process";
import { request } from "node:http";
import { fileURLToPath } from "node:url";
import { filler, MiB, memoryTarget, oversizedTotal, peakGrowth, streamTo } from "@wfr/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const RECEIVER = fileURLToPath(new URL("./support/node-handler-receiver.mjs", import.meta.url));
/** The callback handler's default maxBodyBytes. */
const LIMIT = MiB;

let receiver: ChildProcess;
let port = 0;

/** POSTs `size` bytes in 64 KiB chunks (chunked, or with a declared Content-Length). */
function post(size: number, declare: boolean): Promise<string> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/wfr",
        headers: {
          "content-type": "application/json",
          ...(declare ? { "content-length": String(size) } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(String(res.statusCode)));
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => resolve(`network error ${error.code}`));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

beforeAll(async () => {
  receiver = fork(RECEIVER, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  port = await new Promise<number>((resolve) =>
    receiver.once("message", (p) => resolve(p as number)),
  );
  // Warm up: the first deliveries load the handler's code.
  for (let i = 0; i < 3; i++) await post(64 * 1024, false);
});

afterAll(() => {
  receiver?.kill("SIGKILL");
});

/** Another caller of the receiver, answered (any status) or not. */
const otherCaller = async () => (await fetch(`http://127.0.0.1:${port}/wfr`)).status > 0;

describe("toNodeHandler holds a body to the handler's limit", { timeout: 300_000 }, () => {
  it("an unsigned chunked POST of 32 MiB against the 1 MiB limit is refused with 413; the receiver's peak memory grows under twice the limit; another caller is answered while it streams", async () => {
    await otherCaller();
    const { result, growth } = await peakGrowth(receiver.pid as number, () =>
      streamTo(`http://127.0.0.1:${port}/wfr`, {
        headers: { "content-type": "application/json" },
        chunks: filler(oversizedTotal(LIMIT)),
        midway: LIMIT / 2,
        other: otherCaller,
      }),
    );
    expect(result.status).toBe(413);
    expect(result.otherAnswered).toBe(true);
    // 773 MiB for 256 MiB when toNodeHandler collected the body before the handler's limit.
    expect(growth).toBeLessThan(memoryTarget(LIMIT));
  });

  it("a declared 8 MiB body is refused unread with 413, and the client, still sending, reads it (the rest is discarded)", async () => {
    const answer = await post(8 * MiB, true);
    expect(answer).toBe("413");
  });
});
