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

it("hashes on Node without Web Crypto's thread-pool job, and agrees with Web Crypto byte for byte", async () => {
  const body = '{"inputs":{"vendor_name":"Nørthwind 東京 🚀"}}';
  const webCrypto = Array.from(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body))),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  const digest = crypto.subtle.digest.bind(crypto.subtle);
  let webCryptoCalls = 0;
  crypto.subtle.digest = (...args) => {
    webCryptoCalls += 1;
    return digest(...args);
  };
  try {
    expect(await fingerprintBody(body)).toBe(webCrypto);
    expect(webCryptoCalls).toBe(0);
  } finally {
    crypto.subtle.digest = digest;
  }
});
