import {
  createMemoryLaunchJournal,
  fingerprintBody,
  type LaunchJournal,
  verifyLaunchJournal,
} from "@wfr/runtime";
import { expect, it } from "vitest";

it("the memory journal passes the LaunchJournal conformance check", async () => {
  await verifyLaunchJournal(async () => ({ journal: createMemoryLaunchJournal() }));
});

it("the conformance check catches a journal that lets a second record change the key", async () => {
  const real = createMemoryLaunchJournal();
  const broken: LaunchJournal = {
    ...real,
    async record(intent) {
      const stored = await real.record(intent);
      return { ...stored, idempotencyKey: intent.idempotencyKey };
    },
  };
  await expect(verifyLaunchJournal(async () => ({ journal: broken }))).rejects.toThrow(
    /record is write-once/,
  );
});

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
