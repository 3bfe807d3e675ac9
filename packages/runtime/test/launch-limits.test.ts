// The launch limits the spec sets (docs/service-rules.md#limits, "Launch body"): the 36 MiB body limit holds
// for every launch, not only one with files; an idempotency key is up to 200 characters (code
// points), and a key a header cannot carry travels in the body field `idempotency_key`. The
// emulator is the other side of the last two.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BodyTooLargeError, createClient, InvalidOptionError } from "../src/index.js";
import { buildLaunchBody, characterCount, keyFitsHeader } from "../src/launch-body.js";
import { startTestEmulator, type TestEmulator } from "./support/emulator.js";

const PORTAL = "wf_P3mKs81a";

const OVER_THE_BODY_LIMIT = 37_748_736;

describe("the 36 MiB body limit holds for every launch", () => {
  it("a launch without files whose inputs or metadata are too large is refused before sending", async () => {
    let sent = 0;
    const client = createClient({
      baseUrl: "https://api.example.com/api/v1",
      apiKey: "wfr_test",
      fetch: async () => {
        sent += 1;
        throw new Error("nothing should have been sent");
      },
    });
    const error = await client
      .launch("wf_any", {
        inputs: { note: "x" },
        metadata: { blob: "y".repeat(OVER_THE_BODY_LIMIT) },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BodyTooLargeError);
    expect((error as BodyTooLargeError).status).toBeNull();
    expect(sent).toBe(0);
    await expect(
      buildLaunchBody({ inputs: { note: "z".repeat(OVER_THE_BODY_LIMIT) } }),
    ).rejects.toBeInstanceOf(BodyTooLargeError);
  });
});

describe("idempotency keys", () => {
  it("counts characters as code points and knows which keys a header can carry", () => {
    expect(characterCount("😀".repeat(200))).toBe(200);
    expect(keyFitsHeader("order-42:retry")).toBe(true);
    expect(keyFitsHeader("😀")).toBe(false);
    expect(keyFitsHeader("café")).toBe(false);
    expect(keyFitsHeader(" padded ")).toBe(false);
  });

  describe("against the emulator", () => {
    let emu: TestEmulator;
    beforeAll(async () => {
      emu = await startTestEmulator({ clock: "virtual" });
    });
    afterAll(() => emu?.close());
    const client = () => createClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey });
    const inputs = { portal_url: "https://portal.example.com/login", account_label: "main" };

    it("a key of 200 emoji is valid: sent in the body, and the same key returns the same run", async () => {
      await emu.setScenario(PORTAL, { steps: [{ wait_ms: 60_000 }, { succeed: {} }] });
      const idempotencyKey = "😀".repeat(200);
      const first = await client().launch(PORTAL, { inputs, idempotencyKey });
      const again = await client().launch(PORTAL, { inputs, idempotencyKey });
      expect(again.run_id).toBe(first.run_id);
      expect(first.idempotencyKey).toBe(idempotencyKey);
      const other = await client().launch(PORTAL, {
        inputs,
        idempotencyKey: "😀".repeat(199),
      });
      expect(other.run_id).not.toBe(first.run_id);
    });

    it("201 characters are refused locally, whatever their UTF-16 length", async () => {
      const error = await client()
        .launch(PORTAL, { inputs, idempotencyKey: "😀".repeat(201) })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect((error as InvalidOptionError).code).toBe("INVALID_IDEMPOTENCY_KEY");
    });
  });
});
