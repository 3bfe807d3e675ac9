import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import {
  createCallbackHandler,
  createClient,
  createMemoryEventStore,
  parseCallbackBody,
  type RunEnvelope,
} from "../src/index.js";
import { saveRecording, toNodeHandler } from "../src/node.js";
import { toRunEnvelope } from "../src/run-envelope.js";
import { type FakeApi, startFakeApi } from "./support/fake-api-server.js";
import { createVirtualClock } from "./support/fake-workflows.js";

const run = (status: string): RunEnvelope =>
  toRunEnvelope({
    run_id: "run_1",
    workflow_id: "wf",
    status,
    timestamps: {},
    error: null,
    metadata: { orderId: "o-1" },
    human_action:
      status === "waiting_for_human_live"
        ? { checkpoint_id: "cp_1", response_accepted: false }
        : null,
  });

/** A fake API client whose getRun/getResult report `status`. */
const api = (status: string, onGetRun?: () => Promise<void>) => ({
  getRun: async () => {
    await onGetRun?.();
    return run(status);
  },
  getResult: async () =>
    ["succeeded", "failed", "error", "cancelled", "terminated", "dead_letter"].includes(status)
      ? ({
          state: "terminal",
          status: status === "succeeded" ? "succeeded" : "failed",
          serverStatus: status,
          error: null,
          metadata: {},
          outputs: {},
        } as never)
      : ({ state: "pending", status } as never),
});

const delivery = (eventId: string, type = "workflow.run.completed") =>
  new Request("https://receiver.example.com/wfr", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      event_id: eventId,
      type,
      run: run("succeeded"),
      result: { status: "succeeded", error: null, metadata: {} },
    }),
  });

describe("createCallbackHandler", () => {
  it("Duplicates are possible; receivers store event_id before non-repeatable downstream actions: concurrent duplicates run the handler once, the others are told to retry later", async () => {
    let handled = 0;
    let confirmations = 0;
    const handler = createCallbackHandler({
      client: api("succeeded", async () => {
        confirmations += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }),
      onCompleted: async () => {
        handled += 1;
      },
    });
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => handler(delivery("evt_1"))),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([200, 503, 503, 503, 503]);
    expect(handled).toBe(1);
    expect(confirmations).toBe(1);
    expect((await handler(delivery("evt_1"))).status).toBe(200);
    expect(handled).toBe(1);
  });

  it("A callback confirms only that a notification occurred: the run is confirmed with getRun and both are passed to the handler", async () => {
    const seen: unknown[] = [];
    const handler = createCallbackHandler({
      client: api("waiting_for_human_live"),
      onRequiresAction: (context) => {
        seen.push(context.run.status, context.callback.event_id);
      },
    });
    expect((await handler(delivery("evt_2", "workflow.run.requires_action"))).status).toBe(200);
    expect(seen).toEqual(["waiting_for_human_live", "evt_2"]);
  });

  it("an unknown status (API or delivery) is 'unrecognized': a completed callback is acted on only when the result endpoint says terminal", async () => {
    const acted: unknown[] = [];
    const unknownDelivery = (eventId: string) =>
      new Request("https://receiver.example.com/wfr", {
        method: "POST",
        body: JSON.stringify({
          event_id: eventId,
          type: "workflow.run.completed",
          run: { ...run("succeeded"), status: "archived_for_audit" },
        }),
      });
    const parsed = parseCallbackBody(await unknownDelivery("evt_p").text());
    expect(parsed.ok && parsed.callback.run).toMatchObject({
      status: "unrecognized",
      serverStatus: "archived_for_audit",
    });
    for (const [eventId, resultTerminal] of [
      ["evt_u1", true],
      ["evt_u2", false],
    ] as const) {
      const handler = createCallbackHandler({
        client: {
          getRun: async () => ({
            ...run("succeeded"),
            status: "unrecognized",
            serverStatus: "archived_for_audit",
          }),
          getResult: async () =>
            (resultTerminal
              ? { state: "terminal", status: "unrecognized", serverStatus: "archived_for_audit" }
              : { state: "pending", status: "unrecognized", serverStatus: "archiving" }) as never,
        },
        onCompleted: ({ run: confirmed }) => {
          acted.push([eventId, confirmed.serverStatus]);
        },
      });
      expect((await handler(unknownDelivery(eventId))).status).toBe(200);
    }
    expect(acted).toEqual([["evt_u1", "archived_for_audit"]]);
  });

  it("on handler failure releases the claim and answers 500, so the redelivery is handled", async () => {
    let calls = 0;
    const handler = createCallbackHandler({
      client: api("failed"),
      store: createMemoryEventStore(),
      onCompleted: () => {
        calls += 1;
        if (calls === 1) throw new Error("downstream down");
      },
    });
    expect((await handler(delivery("evt_3"))).status).toBe(500);
    expect((await handler(delivery("evt_3"))).status).toBe(200);
    expect(calls).toBe(2);
  });

  it("answers 200 without waiting for the completion's write; a redelivery meanwhile reads processing (503), and after drain() done", async () => {
    const memory = createMemoryEventStore();
    let landCompletion = () => {};
    const completionHeld = new Promise<void>((resolve) => {
      landCompletion = resolve;
    });
    let calls = 0;
    const handler = createCallbackHandler({
      client: api("succeeded"),
      store: {
        claim: (eventId, leaseMs) => memory.claim(eventId, leaseMs),
        complete: async (eventId, token) => {
          await completionHeld;
          return memory.complete(eventId, token);
        },
        release: (eventId, token) => memory.release(eventId, token),
      },
      onCompleted: () => {
        calls += 1;
      },
    });
    expect((await handler(delivery("evt_behind"))).status).toBe(200);
    const meanwhile = await handler(delivery("evt_behind"));
    expect(meanwhile.status).toBe(503);
    expect(meanwhile.headers.get("retry-after")).not.toBeNull();
    let drained = false;
    const draining = handler.drain().then(() => {
      drained = true;
    });
    await Promise.resolve();
    expect(drained).toBe(false);
    landCompletion();
    await draining;
    const after = await handler(delivery("evt_behind"));
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({ duplicate: true });
    expect(calls).toBe(1);
  });

  it("a completion the store never takes is retried until the lease ends, never answered 500 nor released; what remains: a delivery after the lease runs the handler again", async () => {
    const memory = createMemoryEventStore();
    const errors: string[] = [];
    let calls = 0;
    let releases = 0;
    const handler = createCallbackHandler({
      client: api("succeeded"),
      leaseMs: 1_500,
      store: {
        claim: (eventId, leaseMs) => memory.claim(eventId, leaseMs),
        complete: async () => {
          throw new Error("connection lost");
        },
        release: async (eventId, token) => {
          releases += 1;
          return memory.release(eventId, token);
        },
      },
      logger: { error: (message) => errors.push(message) },
      onCompleted: () => {
        calls += 1;
      },
    });
    expect((await handler(delivery("evt_lost"))).status).toBe(200);
    expect((await handler(delivery("evt_lost"))).status).toBe(503);
    await handler.drain();
    expect(errors).toEqual([
      "completion not stored before the lease ended: the handler ran and the store does not know; a delivery after the lease runs it again",
    ]);
    expect(releases).toBe(0);
    expect(calls).toBe(1);
    // The store never learned of the side effect and the lease could not be held.
    await vi.waitFor(async () => expect((await handler(delivery("evt_lost"))).status).toBe(200), {
      timeout: 30_000,
      interval: 20,
    });
    expect(calls).toBe(2);
    await handler.drain();
  });

  it("answers 405 for non-POST and 400 for malformed bodies", async () => {
    const handler = createCallbackHandler({ client: api("succeeded") });
    expect((await handler(new Request("https://r.example.com/", { method: "GET" }))).status).toBe(
      405,
    );
    const post = (body: string) =>
      handler(new Request("https://r.example.com/", { method: "POST", body }));
    expect((await post("{not json")).status).toBe(400);
    expect(
      (await post(JSON.stringify({ type: "workflow.run.completed", run: { run_id: "r" } }))).status,
    ).toBe(400);
    expect(
      (
        await post(
          JSON.stringify({ event_id: "e", type: "workflow.run.exploded", run: { run_id: "r" } }),
        )
      ).status,
    ).toBe(400);
    expect(
      (await post(JSON.stringify({ event_id: "e", type: "workflow.run.completed", run: {} })))
        .status,
    ).toBe(400);
    expect((await post("[]")).status).toBe(400);
  });

  it("memory store: a completed id is remembered until its retention passes", async () => {
    let now = 0;
    const store = createMemoryEventStore({ retentionMs: 1000, now: () => now });
    const first = await store.claim("e", 100);
    expect(first.outcome).toBe("claimed");
    expect((await store.claim("e", 100)).outcome).toBe("processing");
    expect(await store.complete("e", first.outcome === "claimed" ? first.token : -1)).toBe(true);
    now = 500;
    expect((await store.claim("e", 100)).outcome).toBe("done");
    now = 1001;
    expect((await store.claim("e", 100)).outcome).toBe("claimed");
  });
});

describe("node helpers", () => {
  let fake: FakeApi | undefined;
  const servers: { close(): void }[] = [];
  afterEach(async () => {
    await fake?.close();
    for (const server of servers.splice(0)) server.close();
  });

  it("toNodeHandler serves the callback handler on node:http", async () => {
    let handled = 0;
    const handler = createCallbackHandler({
      client: api("succeeded"),
      onCompleted: () => {
        handled += 1;
      },
    });
    const server = createServer(toNodeHandler(handler));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const request = delivery("evt_node");
    const response = await fetch(`http://127.0.0.1:${port}/wfr`, {
      method: "POST",
      body: await request.text(),
    });
    expect(response.status).toBe(200);
    expect(handled).toBe(1);
  });

  it("saveRecording writes to a temporary file and renames it into place", async () => {
    fake = await startFakeApi("wfr_live_SECRET123");
    const video = new Uint8Array(70_000).map((_, i) => i & 255);
    fake.script("GET", /recording$/, {
      status: 200,
      headers: { "content-type": "video/mp4" },
      body: video,
    });
    const client = createClient({
      baseUrl: fake.baseUrl,
      apiKey: "wfr_live_SECRET123",
      clock: createVirtualClock(),
    });
    const dir = await mkdtemp(join(tmpdir(), "wfr-rec-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const saved = await saveRecording(client, "run_1", join(dir, "run_1.mp4"));
    expect(saved.bytes).toBe(video.byteLength);
    expect(new Uint8Array(await readFile(join(dir, "run_1.mp4")))).toEqual(video);
    expect(await readdir(dir)).toEqual(["run_1.mp4"]);

    fake.script("GET", /recording$/, {
      status: 404,
      body: { error: "none", code: "RECORDING_NOT_FOUND" },
    });
    await expect(saveRecording(client, "run_1", join(dir, "other.mp4"))).rejects.toMatchObject({
      code: "RECORDING_NOT_FOUND",
    });
    expect(await readdir(dir)).toEqual(["run_1.mp4"]);
  });
});
