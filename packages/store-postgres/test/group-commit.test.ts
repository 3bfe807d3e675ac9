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

  it("with inFlight > 1 (a pool), the next batch goes out while one is still on the wire", async () => {
    const writer = recordingWriter();
    const submit = groupCommit(writer.write, { inFlight: 3 });
    const first = submit(1);
    await turn();
    await turn();
    const second = submit(2);
    for (let i = 0; i < 5; i++) await turn();
    expect(writer.batches).toEqual([[1], [2]]);
    expect(writer.mostInFlight()).toBe(2);
    writer.releaseAll();
    expect(await Promise.all([first, second])).toEqual([10, 20]);
  });

  it("with sendEarly (a pool), a round goes out in halves: the first half leaves while the rest is still arriving", async () => {
    const shapes: Record<string, number[][][]> = {};
    for (const sendEarly of [false, true]) {
      const writer = recordingWriter();
      const submit = groupCommit(writer.write, { inFlight: 2, sendEarly });
      shapes[String(sendEarly)] = [];
      for (let round = 0; round < 3; round++) {
        // Eight callers, each a few microtasks after the one before, within one turn of the loop.
        const results: Promise<number>[] = [];
        for (let i = 0; i < 8; i++) {
          results.push(submit(round * 10 + i));
          for (let tick = 0; tick < 3; tick++) await Promise.resolve();
        }
        let answered = false;
        const all = Promise.all(results).then((values) => {
          answered = true;
          return values;
        });
        while (!answered) {
          await turn();
          writer.releaseAll();
        }
        expect(await all).toEqual(results.map((_, i) => (round * 10 + i) * 10));
        shapes[String(sendEarly)]?.push(writer.batches.splice(0));
      }
    }
    // Without it, each round waits for the loop's turn and goes whole.
    expect(shapes.false).toEqual([
      [[0, 1, 2, 3, 4, 5, 6, 7]],
      [[10, 11, 12, 13, 14, 15, 16, 17]],
      [[20, 21, 22, 23, 24, 25, 26, 27]],
    ]);
    // With it, once a round's size is known, its first half goes before the turn.
    expect(shapes.true?.slice(1)).toEqual([
      [
        [10, 11, 12, 13],
        [14, 15, 16, 17],
      ],
      [
        [20, 21, 22, 23],
        [24, 25, 26, 27],
      ],
    ]);
  });

  it("sendEarly needs a second write in flight: with inFlight 1 (PGlite) rounds go whole", async () => {
    const writer = recordingWriter();
    const submit = groupCommit(writer.write, { sendEarly: true });
    for (let round = 0; round < 2; round++) {
      const results: Promise<number>[] = [];
      for (let i = 0; i < 8; i++) {
        results.push(submit(i));
        await Promise.resolve();
      }
      for (let i = 0; i < 3; i++) await turn();
      writer.releaseAll();
      await Promise.all(results);
    }
    expect(writer.batches).toEqual([
      [0, 1, 2, 3, 4, 5, 6, 7],
      [0, 1, 2, 3, 4, 5, 6, 7],
    ]);
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
