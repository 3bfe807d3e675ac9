// The torn-tail message: which record was cut, and whether it had been acknowledged.
import { describe, expect, it } from "vitest";
import { compactedHeader, describeRecord, describeTornTail } from "../../src/journal/torn-tail.js";

const cut = '{"t":"run","run":{"run_id":"run_abc","environment":"produ';

describe("describeTornTail", () => {
  it("names the record's kind and the run it was about, from the cut text", () => {
    expect(describeRecord(cut)).toBe("a `run` record (run_id run_abc)");
    expect(describeRecord('{"t":"cb_done","event_id":"evt_1"')).toBe(
      "a `cb_done` record (event_id evt_1)",
    );
    expect(describeRecord('{"t":"cl')).toMatch(/kind the cut text does not show/);
  });

  it("inside the compacted snapshot: it had been acknowledged", () => {
    expect(describeTornTail(cut, 100, { bytes: 500 })).toMatch(/HAD been acknowledged/);
  });

  it("after the snapshot: an interrupted append, never acknowledged", () => {
    expect(describeTornTail(cut, 500, { bytes: 500 })).toMatch(/had not been acknowledged/);
  });

  it("without a header it says it cannot tell", () => {
    expect(describeTornTail(cut, 0, null)).toMatch(/cannot be told/);
  });

  it("the header has one length whatever the number, so it can be filled in last", () => {
    expect(compactedHeader(0).length).toBe(compactedHeader(123_456_789_012).length);
    expect(JSON.parse(compactedHeader(42))).toEqual({ t: "compacted", bytes: 42 });
  });
});
