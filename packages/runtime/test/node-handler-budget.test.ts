// A callback receiver is public: an unsigned body far over the handler's limit must cost the
// limit, not its size. toNodeHandler hands the body to the handler as a stream (the callback
// handler reads 1 MiB, then answers 413) and discards what is left, so the receiver's peak
// memory does not follow the body. Measured in a receiver process of its own (its peak RSS from
// process.resourceUsage()), as Express or Fastify examples run it.
import { type ChildProcess, fork } from "node:child_process";
import { request } from "node:http";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const RECEIVER = fileURLToPath(new URL("./support/node-handler-receiver.mjs", import.meta.url));
const MiB = 1024 * 1024;

let receiver: ChildProcess;
let port = 0;

function ask<T>(message: string): Promise<T> {
  return new Promise((resolve) => {
    receiver.once("message", (answer) => resolve(answer as T));
    receiver.send(message);
  });
}

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

describe("toNodeHandler holds a body to the handler's limit", { timeout: 300_000 }, () => {
  it("an unsigned 256 MiB chunked POST is refused with 413; the receiver's peak memory grows by under 8 MiB (the 1 MiB limit and socket buffers; 773 MiB when the body was collected first)", async () => {
    const before = await ask<number>("peak-rss");
    const answer = await post(256 * MiB, false);
    const after = await ask<number>("peak-rss");
    // The client may read the 413 or, past the discard allowance, a cut connection; either way
    // the receiver must not have held the body.
    expect(answer).toMatch(/^413$|^network error/);
    expect((after - before) / MiB).toBeLessThan(8);
  });

  it("a declared 8 MiB body is refused unread with 413, and the client, still sending, reads it (the rest is discarded)", async () => {
    const answer = await post(8 * MiB, true);
    expect(answer).toBe("413");
  });
});
