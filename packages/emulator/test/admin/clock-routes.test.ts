// The admin API's clock: GET /clock names the next event, and POST /clock/advance with
// until_next_event stops there, after the callback deliveries in flight have ended
// (src/admin/clock-routes.ts).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/index.js";

type Emu = Awaited<ReturnType<typeof startEmulator>>;
const HOUR = 3_600_000;
const WORKFLOW = "wf_P3mKs81a";
const portal = { inputs: { portal_url: "https://portal.example.com", account_label: "main" } };

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function start(): Promise<Emu> {
  const emu = await startEmulator({ clock: "virtual", allowLocalCallbacks: true });
  stops.push(() => emu.close());
  return emu;
}

async function admin<T>(emu: Emu, method: string, path: string, body?: unknown): Promise<T> {
  const r = await fetch(`${emu.url}/_emulator${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = await r.json();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
  return json as T;
}

async function launchWith(emu: Emu, steps: unknown[], callbackUrl?: string): Promise<string> {
  await admin(emu, "PUT", `/environments/production/workflows/${WORKFLOW}/scenario`, { steps });
  const { token } = await admin<{ token: string }>(emu, "POST", "/keys", {
    environment: "production",
    scopes: ["workflows:run", "runs:read"],
  });
  const r = await fetch(`${emu.url}/production/api/v1/automations/${WORKFLOW}/runs`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ ...portal, ...(callbackUrl ? { callback_url: callbackUrl } : {}) }),
  });
  expect(r.status).toBe(202);
  return ((await r.json()) as { run_id: string }).run_id;
}

interface ClockView {
  now: string;
  next_event_at: string | null;
}

describe("admin clock", () => {
  it("stops at each next event in turn, and moves by ms once nothing is scheduled", async () => {
    const emu = await start();
    const t0 = Date.parse((await admin<ClockView>(emu, "GET", "/clock")).now);
    await launchWith(emu, [
      { wait_ms: HOUR },
      { human: { kind: "approval", reason: "r", expires_in_ms: 24 * HOUR } },
    ]);
    const clock = await admin<ClockView>(emu, "GET", "/clock");
    expect(Date.parse(clock.next_event_at as string) - t0).toBe(50);
    const stopsAt: number[] = [];
    let moved: ClockView | undefined;
    while (stopsAt.length < 6 && moved?.next_event_at !== null) {
      moved = await admin<ClockView>(emu, "POST", "/clock/advance", {
        ms: 30 * 24 * HOUR,
        until_next_event: true,
      });
      stopsAt.push(Date.parse(moved.now) - t0);
    }
    moved = await admin<ClockView>(emu, "POST", "/clock/advance", {
      ms: 30 * 24 * HOUR,
      until_next_event: true,
    });
    stopsAt.push(Date.parse(moved.now) - t0);
    // queued -> starting, starting -> running (the wait begins), the checkpoint, its expiry,
    // then nothing is scheduled and the clock moves the whole way.
    expect(stopsAt).toEqual([
      50,
      100,
      100 + HOUR,
      100 + 25 * HOUR,
      100 + 25 * HOUR + 30 * 24 * HOUR,
    ]);
  });

  it("waits for a callback delivery in flight before it moves", async () => {
    const order: string[] = [];
    let received: () => void = () => {};
    const firstDelivery = new Promise<void>((r) => {
      received = r;
    });
    let answer: (() => void) | undefined;
    const receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        if (answer !== undefined || order.length > 0) return void res.writeHead(200).end();
        order.push("delivery received");
        answer = () => {
          order.push("delivery answered");
          res.writeHead(200).end();
        };
        received();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    stops.push(() => new Promise<void>((r) => receiver.close(() => r())));
    const emu = await start();
    await launchWith(
      emu,
      [{ human: { kind: "approval", reason: "r", expires_in_ms: HOUR } }],
      `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
    );
    // To the checkpoint: its requires_action callback starts, and the receiver holds its answer.
    await admin(emu, "POST", "/clock/advance", { ms: 100 });
    await firstDelivery;
    const moving = admin<ClockView>(emu, "POST", "/clock/advance", {
      ms: 2 * HOUR,
      until_next_event: true,
    }).then((moved) => {
      order.push("clock moved");
      return moved;
    });
    // However long the receiver holds its answer, the clock stays (checked a few turns later).
    for (let i = 0; i < 10; i += 1) await new Promise((r) => setTimeout(r, 5));
    expect(order).toEqual(["delivery received"]);
    answer?.();
    const moved = await moving;
    expect(order).toEqual(["delivery received", "delivery answered", "clock moved"]);
    // ... and then it stopped at the expiry, the next event, not two hours on.
    expect(moved.next_event_at).toBeNull();
  });

  it("refuses an until_next_event that is not a boolean, naming it", async () => {
    const emu = await start();
    await expect(
      admin(emu, "POST", "/clock/advance", { ms: 1, until_next_event: "yes" }),
    ).rejects.toThrow(/400.*until_next_event/);
  });
});
