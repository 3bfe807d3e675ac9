import { describe, expect, it } from "vitest";
import { progressWriter } from "../src/progress-output.js";

/** A writer whose end of turn the test decides. */
function writerUnderTest() {
  const written: string[] = [];
  const turns: (() => void)[] = [];
  const progress = progressWriter(
    (text) => written.push(text),
    (flush) => turns.push(flush),
  );
  const endTurn = () => {
    for (const flush of turns.splice(0)) flush();
  };
  return { progress, written, endTurn };
}

describe("progressWriter", () => {
  it("writes the lines of one turn in one write, in order, at the end of the turn", () => {
    const { progress, written, endTurn } = writerUnderTest();
    progress.add("row 1: run_a\n");
    progress.add("row 2: run_b\n");
    expect(written).toEqual([]);
    endTurn();
    progress.add("row 3: run_c\n");
    endTurn();
    expect(written).toEqual(["row 1: run_a\nrow 2: run_b\n", "row 3: run_c\n"]);
  });

  it("of the bars set in one turn, writes the latest only", () => {
    const { progress, written, endTurn } = writerUnderTest();
    progress.set("\r[#--] 1/3");
    progress.set("\r[##-] 2/3");
    endTurn();
    expect(written).toEqual(["\r[##-] 2/3"]);
  });

  it("flush writes what is pending at once, and the end of the turn then writes nothing twice", () => {
    const { progress, written, endTurn } = writerUnderTest();
    progress.add("row 1: run_a\n");
    progress.flush();
    endTurn();
    progress.flush();
    expect(written).toEqual(["row 1: run_a\n"]);
  });
});
