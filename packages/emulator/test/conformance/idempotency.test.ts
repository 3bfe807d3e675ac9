import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Client,
  CRM,
  Harness,
  INVOICE,
  invoiceBody,
  PORTAL,
  portalBody,
  runIdOf,
} from "./support.js";

let h: Harness;
let c: Client;
let n = 0;
const fresh = () => `idem-${process.pid}-${++n}-${Math.random().toString(36).slice(2)}`;

beforeAll(async () => {
  h = await Harness.start();
  c = await h.client();
  for (const wf of [INVOICE, PORTAL, CRM]) {
    await h.scenario("production", wf, { steps: [{ wait_ms: 1_000 }, { succeed: {} }] });
  }
});
afterAll(() => h?.close());

describe("Idempotency", () => {
  it("Repeating the same request with the same key returns 202 with the same run", async () => {
    const key = fresh();
    const first = await c.launch(INVOICE, invoiceBody(), { "idempotency-key": key });
    expect(first.status).toBe(202);
    const before = (await h.runs()).length;
    const second = await c.launch(INVOICE, invoiceBody(), { "idempotency-key": key });
    expect(second.status).toBe(202);
    expect(second.body.run_id).toBe(first.body.run_id);
    expect((await h.runs()).length).toBe(before);
  });

  it("Changing the request under the same key returns 409 IDEMPOTENCY_CONFLICT", async () => {
    const key = fresh();
    const first = await c.launch(INVOICE, invoiceBody(), { "idempotency-key": key });
    expect(first.status).toBe(202);
    const changed = invoiceBody();
    changed.inputs.amount = 99;
    for (const body of [
      changed,
      invoiceBody({ metadata: { a: 1 } }),
      invoiceBody({ model: "pro" }),
    ]) {
      const r = await c.launch(INVOICE, body, { "idempotency-key": key });
      expect(r.status).toBe(409);
      expect(r.body.code).toBe("IDEMPOTENCY_CONFLICT");
      expect(r.headers.get("x-should-retry")).toBe("false");
      expect(r.body.run_id).toBeUndefined();
    }
  });

  it("On a lost response the caller resends the identical body with the original key", async () => {
    const key = fresh();
    const before = (await h.runs()).length;
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        c.launch(INVOICE, invoiceBody({ metadata: { attempt: "same" } }), {
          "idempotency-key": key,
        }),
      ),
    );
    for (const r of results) expect(r.status).toBe(202);
    const ids = new Set(results.map((r) => r.body.run_id));
    expect(ids.size).toBe(1);
    expect((await h.runs()).length).toBe(before + 1);
  });

  it("The original run is returned even after it has progressed", async () => {
    const key = fresh();
    const run = await c.start(PORTAL, portalBody(), { "idempotency-key": key });
    await c.untilTerminal(run.run_id);
    const again = await c.launch(PORTAL, portalBody(), { "idempotency-key": key });
    expect(again.status).toBe(202);
    expect(again.body.run_id).toBe(run.run_id);
    expect(again.body.status).toBe("succeeded");
  });

  it("The Idempotency-Key header obeys the same 200-character limit", async () => {
    const ok = await c.launch(INVOICE, invoiceBody(), { "idempotency-key": "h".repeat(200) });
    expect(ok.status).toBe(202);
    const before = (await h.runs()).length;
    const r = await c.launch(INVOICE, invoiceBody(), { "idempotency-key": "h".repeat(201) });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("INVALID_IDEMPOTENCY_KEY");
    expect((await h.runs()).length).toBe(before);
  });

  it("A new intended execution uses a new key", async () => {
    const a = await c.start(INVOICE, invoiceBody(), { "idempotency-key": fresh() });
    const b = await c.start(INVOICE, invoiceBody(), { "idempotency-key": fresh() });
    expect(a.run_id).not.toBe(b.run_id);
    const x = await c.start(INVOICE, invoiceBody());
    const y = await c.start(INVOICE, invoiceBody());
    expect(x.run_id).not.toBe(y.run_id);
  });

  it("Idempotency: the key is scoped to the client and the workflow", async () => {
    const key = fresh();
    const inv = await c.start(INVOICE, invoiceBody(), { "idempotency-key": key });
    const crm = await c.launch(CRM, { inputs: { contacts: [] } }, { "idempotency-key": key });
    expect(crm.status).toBe(202);
    expect(crm.body.run_id).not.toBe(inv.run_id);

    // A second key of the same client (same workspace) replaying the request gets the same run:
    // the client, not the individual API key, owns the idempotency key.
    const rotated = await h.client("production");
    const replay = await rotated.launch(INVOICE, invoiceBody(), { "idempotency-key": key });
    expect(replay.status).toBe(202);
    expect(replay.body.run_id).toBe(inv.run_id);
  });

  it("idempotency_key in the body is an alternative to the Idempotency-Key header", async () => {
    const key = fresh();
    const viaBody = await c.start(INVOICE, invoiceBody({ idempotency_key: key }));
    const again = await c.launch(INVOICE, invoiceBody({ idempotency_key: key }));
    expect(again.status).toBe(202);
    expect(again.body.run_id).toBe(viaBody.run_id);
    const changed = await c.launch(
      INVOICE,
      invoiceBody({ idempotency_key: key, metadata: { x: 1 } }),
    );
    expect(changed.status).toBe(409);
    expect(changed.body.code).toBe("IDEMPOTENCY_CONFLICT");
  });

  it("idempotency_key takes precedence when both are sent", async () => {
    const bodyKey = fresh();
    const headerKey = fresh();
    const first = await c.start(INVOICE, invoiceBody({ idempotency_key: bodyKey }), {
      "idempotency-key": headerKey,
    });
    // Same body key, a different header key: still the body key that counts.
    const second = await c.launch(INVOICE, invoiceBody({ idempotency_key: bodyKey }), {
      "idempotency-key": fresh(),
    });
    expect(second.status).toBe(202);
    expect(second.body.run_id).toBe(first.run_id);
    // The header key of the first request was not used: a changed request under it is new work.
    const third = await c.launch(INVOICE, invoiceBody({ metadata: { other: true } }), {
      "idempotency-key": headerKey,
    });
    expect(third.status).toBe(202);
    expect(third.body.run_id).not.toBe(first.run_id);
    const listed = (await h.runs()).map(runIdOf);
    expect(listed).toContain(third.body.run_id);
  });
});
