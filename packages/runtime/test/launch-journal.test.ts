// The memory journal's conformance run is in @wfr/testing (test/memory-stores.test.ts).
import { fingerprintBody } from "@wfr/runtime";
import { expect, it } from "vitest";

it("fingerprints the body bytes with SHA-256, the same for a string and its UTF-8 bytes", async () => {
  const body = '{"inputs":{"vendor_name":"Nørthwind"}}';
  const hex = await fingerprintBody(body);
  expect(hex).toMatch(/^[0-9a-f]{64}$/);
  expect(await fingerprintBody(new TextEncoder().encode(body))).toBe(hex);
  expect(await fingerprintBody(`${body} `)).not.toBe(hex);
  // A known vector: SHA-256("abc").
  expect(await fingerprintBody("abc")).toBe(
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});
