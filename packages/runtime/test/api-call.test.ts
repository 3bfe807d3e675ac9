// ApiCall: one call, its data by await and its raw response by .withResponse().
import { describe, expect, it } from "vitest";
import { ApiCall, withResponseOf } from "../src/api-call.js";

const raw = (value: { n: number }) =>
  Promise.resolve(withResponseOf(value, new Response(null, { status: 200 }), "req_1"));

describe("ApiCall", () => {
  it("awaiting gives the data with its non-enumerable _requestId", async () => {
    const data = await new ApiCall(raw({ n: 1 }));
    expect(data).toEqual({ n: 1 });
    expect(data._requestId).toBe("req_1");
    expect(Object.keys(data)).toEqual(["n"]);
  });

  it("withResponse() gives data, response and request id of the same single request", async () => {
    let sent = 0;
    const call = new ApiCall(
      (async () => {
        sent += 1;
        return raw({ n: 2 });
      })(),
    );
    const [data, full] = await Promise.all([call, call.withResponse()]);
    expect(sent).toBe(1);
    expect(full.data).toBe(data);
    expect(full.response.status).toBe(200);
    expect(full.requestId).toBe("req_1");
  });

  it("is a Promise: instanceof, catch, finally, Promise.all; derived promises are plain", async () => {
    const call = new ApiCall(raw({ n: 3 }));
    expect(call).toBeInstanceOf(Promise);
    expect(call.then((d) => d.n)).not.toBeInstanceOf(ApiCall);
    let finished = false;
    await call.finally(() => {
      finished = true;
    });
    expect(finished).toBe(true);
    const failing = new ApiCall<{ n: number }>(Promise.reject(new Error("boom")));
    await expect(failing).rejects.toThrow("boom");
    expect(await failing.catch((e: Error) => e.message)).toBe("boom");
    await expect(failing.withResponse()).rejects.toThrow("boom");
  });
});
