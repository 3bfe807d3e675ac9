import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyLaunchJournal } from "@wfr/testing";
import { afterEach, describe, expect, it } from "vitest";
import { FileLaunchJournalError, openFileLaunchJournal } from "../src/file-launch-journal.js";

const dirs: string[] = [];
const freshFile = () => {
  const dir = mkdtempSync(join(tmpdir(), "file-journal-"));
  dirs.push(dir);
  return join(dir, "journal.jsonl");
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const intent = (id: string) => ({
  intentId: id,
  idempotencyKey: `key-${id}`,
  bodyFingerprint: `f-${id}`,
});

describe("file launch journal", () => {
  it("keeps the LaunchJournal contract", async () => {
    await verifyLaunchJournal(async () => {
      const journal = await openFileLaunchJournal(freshFile());
      return { journal, close: () => journal.close() };
    });
  });

  it("a reopened journal holds every state, run, failure and time it was left with", async () => {
    const file = freshFile();
    const first = await openFileLaunchJournal(file);
    await first.record(intent("a"));
    await first.record(intent("b"));
    await first.record(intent("c"));
    await first.markSent("a");
    await first.markSent("b");
    await first.markAcknowledged("b", "run_b");
    await first.markFailed("c", "422 INVALID_INPUTS");
    const before = await first.get("a");
    await first.close();

    const second = await openFileLaunchJournal(file);
    expect(await second.get("a")).toEqual(before);
    expect(await second.get("b")).toMatchObject({ state: "acknowledged", runId: "run_b" });
    expect(await second.get("c")).toMatchObject({
      state: "failed",
      failure: "422 INVALID_INPUTS",
    });
    expect((await second.listUnacknowledged()).map((i) => i.intentId)).toEqual(["a"]);
    await second.close();
  });

  it("concurrent changes share one write: the file has one line per change, in order", async () => {
    const file = freshFile();
    const journal = await openFileLaunchJournal(file);
    await Promise.all(Array.from({ length: 50 }, (_, i) => journal.record(intent(`r${i}`))));
    // Two records of one intent at once write one line; both callers get it.
    const [x, y] = await Promise.all([
      journal.record(intent("same")),
      journal.record({ ...intent("same"), idempotencyKey: "other" }),
    ]);
    expect(y).toEqual(x);
    await journal.close();
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(lines).toHaveLength(51);
    expect(lines.every((line) => JSON.parse(line).op === "record")).toBe(true);
  });

  it("a torn last line (a kill during a write) is cut off; the changes before it hold", async () => {
    const file = freshFile();
    const journal = await openFileLaunchJournal(file);
    await journal.record(intent("kept"));
    await journal.close();
    appendFileSync(file, '{"op":"acknowledged","intentId":"kept","runId":"run_');

    const reopened = await openFileLaunchJournal(file);
    expect(await reopened.get("kept")).toMatchObject({ state: "recorded", runId: null });
    await reopened.markAcknowledged("kept", "run_1");
    await reopened.close();
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(lines.map((line) => JSON.parse(line).op)).toEqual(["record", "acknowledged"]);
  });

  it("a line in the middle that is not JSON is an error naming the file and line, not a silent loss", async () => {
    const file = freshFile();
    writeFileSync(
      file,
      `${JSON.stringify({ op: "record", ...intent("a"), at: 1 })}\nnot json\n${JSON.stringify({ op: "sent", intentId: "a", at: 2 })}\n`,
    );
    const opening = openFileLaunchJournal(file);
    await expect(opening).rejects.toBeInstanceOf(FileLaunchJournalError);
    await expect(opening).rejects.toThrow(`${file}: line 2 is not JSON`);
    // The failed open released its lock: the next open is not refused as "in use".
    writeFileSync(file, `${JSON.stringify({ op: "record", ...intent("a"), at: 1 })}\n`);
    const journal = await openFileLaunchJournal(file);
    await journal.close();
  });

  it("a second process on the same file is refused while the first lives, and takes over after it dies", async () => {
    const file = freshFile();
    const holder = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], {
      stdio: "ignore",
    });
    try {
      writeFileSync(`${file}.lock`, `${holder.pid}\n`);
      await expect(openFileLaunchJournal(file)).rejects.toThrow(`in use by process ${holder.pid}`);
    } finally {
      holder.kill("SIGKILL");
      await new Promise((resolve) => holder.once("exit", resolve));
    }
    // The holder was killed -9: its lock is stale and taken over.
    const journal = await openFileLaunchJournal(file);
    await journal.record(intent("after"));
    expect(readFileSync(`${file}.lock`, "utf8").trim()).toBe(String(process.pid));
    await journal.close();
  });
});
