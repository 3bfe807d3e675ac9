// Two desk instances behind one PostgreSQL, callbacks spread over both by a
// round-robin proxy (a load balancer), and every callback delivered again
// (the emulator's resend): each event's notification happens exactly once.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type RunningEmulator, startEmulator } from "@wfr/emulator";
import { openPostgresStores } from "@wfr/store-postgres";
import { type PostgresServer, startPostgresServer, waitUntil } from "@wfr/test-servers";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type RunningDesk, startDesk } from "../src/desk.js";

const PUBLIC_CALLBACK_URL = "https://invoice-desk.example/callbacks/wfr";
const INVOICES = 6;
let pg: PostgresServer;
let emulator: RunningEmulator;
let balancer: Server;
const desks: RunningDesk[] = [];

beforeAll(async () => {
  pg = await startPostgresServer();
  // Each instance listens on a port the system picks (a port found free and then bound by
  // another process in between would fail the start); the balancer reads them at request time.
  const ports: number[] = [];
  // The load balancer in front of both instances. It alternates, and sends a
  // delivery of an event it has seen before to the other instance than last time.
  let next = 0;
  const lastInstance = new Map<string, number>();
  balancer = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const eventId = String(
      (JSON.parse(Buffer.concat(chunks).toString() || "{}") as { event_id?: string }).event_id,
    );
    const previous = lastInstance.get(eventId);
    next += 1;
    const instance = previous === undefined ? next % 2 : 1 - previous;
    lastInstance.set(eventId, instance);
    const port = ports[instance];
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(
        ([name]) => !["host", "content-length", "connection"].includes(name),
      ),
    ) as Record<string, string>;
    const upstream = await fetch(`http://127.0.0.1:${port}${request.url}`, {
      method: request.method ?? "POST",
      headers,
      body: Buffer.concat(chunks),
    });
    response.writeHead(upstream.status, {
      "content-type": upstream.headers.get("content-type") ?? "text/plain",
    });
    response.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((resolve) => balancer.listen(0, "127.0.0.1", resolve));
  const balancerPort = (balancer.address() as AddressInfo).port;
  emulator = await startEmulator({
    port: 0,
    forwardCallbacks: `http://127.0.0.1:${balancerPort}/callbacks/wfr`,
  });
  const keyResponse = await fetch(`${emulator.url}/_emulator/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
  });
  const { token } = (await keyResponse.json()) as { token: string };
  for (const index of [0, 1]) {
    const desk = await startDesk({
      baseUrl: `${emulator.url}/production/api/v1`,
      apiKey: token,
      databaseUrl: pg.url,
      port: 0,
      callbackUrl: PUBLIC_CALLBACK_URL,
      operator: { username: "ana", password: "pw-for-tests" },
      instance: `desk-${index === 0 ? "a" : "b"}`,
      // Polling only as the fallback: long enough that callbacks do the work here.
      pollIntervalMs: 60_000,
      log: () => undefined,
    });
    desks.push(desk);
    ports.push(Number(new URL(desk.url).port));
  }
});

afterAll(async () => {
  for (const desk of desks) await desk.close();
  await emulator?.close();
  await new Promise((resolve) => balancer?.close(resolve));
  await pg?.stop();
});

async function signIn(desk: RunningDesk): Promise<{ cookie: string; csrf: string }> {
  const login = await fetch(`${desk.url}/login`, {
    method: "POST",
    body: new URLSearchParams({ username: "ana", password: "pw-for-tests" }),
    redirect: "manual",
  });
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const page = await (await fetch(`${desk.url}/invoices/new`, { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
  return { cookie, csrf };
}

interface Delivery {
  event_id: string;
  type: string;
  status: number | null;
  attempt: number;
}

it("duplicated callbacks spread over two instances: every event's notification happens exactly once", async () => {
  // Upload half the invoices through each instance, as operators would.
  for (let i = 0; i < INVOICES; i++) {
    const desk = desks[i % 2] as RunningDesk;
    const session = await signIn(desk);
    const form = new FormData();
    form.set("csrf", session.csrf);
    form.set("invoice_id", `INV-${i}`);
    form.set("vendor_name", "Northwind Traders");
    form.set("amount", "100.00");
    form.set(
      "pdf",
      new Blob([new TextEncoder().encode("%PDF-1.4\n%%EOF\n")], { type: "application/pdf" }),
      `INV-${i}.pdf`,
    );
    const upload = await fetch(`${desk.url}/invoices`, {
      method: "POST",
      body: form,
      headers: { cookie: session.cookie },
      redirect: "manual",
    });
    expect(upload.status).toBe(303);
  }
  const deliveries = async () =>
    (
      (await (
        await fetch(`${emulator.url}/_emulator/environments/production/callbacks`)
      ).json()) as {
        deliveries: Delivery[];
      }
    ).deliveries;
  const completed = async () =>
    deliveries().then((all) => all.filter((d) => d.type === "workflow.run.completed"));
  await waitUntil(async () => {
    const done = await completed();
    return (
      new Set(done.map((d) => d.event_id)).size === INVOICES && done.every((d) => d.status !== null)
    );
  });
  // Every completed event once more: the duplicate lands on the other instance.
  const eventIds = [...new Set((await completed()).map((d) => d.event_id))];
  for (const eventId of eventIds) {
    const resend = await fetch(
      `${emulator.url}/_emulator/environments/production/callbacks/${eventId}/resend`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      },
    );
    expect(resend.status).toBe(202);
  }
  await waitUntil(async () => {
    const all = await completed();
    return all.length >= INVOICES * 2 && all.every((d) => d.status !== null);
  });

  const stores = await openPostgresStores({ databaseUrl: pg.url });
  const { rows } = await stores.sql.query<{ event_id: string; count: string; instances: string }>(
    "SELECT event_id, count(*)::text AS count, string_agg(instance, ',') AS instances FROM desk_notifications GROUP BY event_id",
  );
  await stores.close();
  expect(rows.map((r) => r.event_id).sort()).toEqual([...eventIds].sort());
  expect(rows.every((r) => r.count === "1")).toBe(true);
  // Both instances received deliveries (the balancer alternates), yet nothing repeated.
  console.log(
    `events: ${rows.length}, notifications per event: 1, instances: ${[...new Set(rows.map((r) => r.instances))].join(" ")}`,
  );
});
