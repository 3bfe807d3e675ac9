import { describe, expect, it } from "vitest";
import { groupCommit, type ItemOutcome } from "../src/group-commit.js";

/** A batch writer that records each batch and how many writes overlapped. */
function recordingWriter() {
  const batches: number[][] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const releases: (() => void)[] = [];
  const write = async (items: readonly number[]): Promise<ItemOutcome<number>[]> => {
    batches.push([...items]);
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    await new Promise<void>((resolve) => releases.push(resolve));
    inFlight -= 1;
    return items.map((item) =>
      item < 0 ? { error: new Error(`bad ${item}`) } : { value: item * 10 },
    );
  };
  const releaseAll = () => {
    for (const release of releases.splice(0)) release();
  };
  return { batches, write, releaseAll, mostInFlight: () => mostInFlight };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("groupCommit", () => {
  it("items that arrive in one turn go out in one write, each with its own outcome", async () => {
    const writer = recordingWriter();
    const submit = groupCommit(writer.write);
    const results = [1, -2, 3].map((item) => submit(item).then(String, (error) => error.message));
    await turn();
    await turn();
    writer.releaseAll();
    expect(await Promise.all(results)).toEqual(["10", "bad -2", "30"]);
    expect(writer.batches).toEqual([[1, -2, 3]]);
  });

  it("with one write in flight (PGlite), items arriving meanwhile wait and go together in the next", async () => {
    const writer = recordingWriter();
    const submit = groupCommit(writer.write);
    const first = submit(1);
    await turn();
    await turn();
    const later = [submit(2), submit(3)];
    for (let i = 0; i < 5; i++) await turn();
    expect(writer.batches).toEqual([[1]]);
    writer.releaseAll();
    await first;
    for (let i = 0; i < 5; i++) await turn();
    writer.releaseAll();
    expect(await Promise.all(later)).toEqual([20, 30]);
    expect(writer.batches).toEqual([[1], [2, 3]]);
    expect(writer.mostInFlight()).toBe(1);
  });

  it("a batch never holds more than maxBatch items", async () => {
    const writer = recordingWriter();
    const submit = groupCommit(writer.write, { maxBatch: 2 });
    const results = [1, 2, 3, 4, 5].map((item) => submit(item));
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 3; i++) await turn();
      writer.releaseAll();
    }
    expect(await Promise.all(results)).toEqual([10, 20, 30, 40, 50]);
    expect(writer.batches).toEqual([[1, 2], [3, 4], [5]]);
  });
});
