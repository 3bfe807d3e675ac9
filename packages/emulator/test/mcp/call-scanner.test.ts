// The /mcp body scanner (src/agent/mcp-endpoint/call-scanner.ts) reads what JSON.parse would,
// however the bytes are cut into chunks: the method, the tool, the id, the draft's field counts.
import { describe, expect, it } from "vitest";
import { JsonRpcCallScanner } from "../../src/agent/mcp-endpoint/call-scanner.js";

function scan(text: string, cuts: readonly number[]) {
  const bytes = Buffer.from(text);
  const scanner = new JsonRpcCallScanner();
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    scanner.feed(bytes.subarray(from, cut));
    from = cut;
  }
  const { method, tool, id, inputs, outputs } = scanner;
  return { method, tool, id, inputs, outputs };
}

/** What JSON.parse says of the same body. */
function parsed(text: string) {
  const body = JSON.parse(text);
  const args = body.params?.arguments;
  return {
    method: typeof body.method === "string" ? body.method : undefined,
    tool: typeof body.params?.name === "string" ? body.params.name : undefined,
    id: body.id,
    inputs: Array.isArray(args?.inputs) ? args.inputs.length : 0,
    outputs: Array.isArray(args?.outputs) ? args.outputs.length : 0,
  };
}

const BODIES = [
  // As the SDK's client sends it: method and params first, the id last.
  '{"method":"tools/call","params":{"name":"save_workflow","arguments":{"name":"A","inputs":[{"name":"a","type":"text"},{"name":"b","type":"number"}],"outputs":[]}},"jsonrpc":"2.0","id":7}',
  // Keys in another order, spaces, escapes (a quote and backslashes inside strings and keys).
  ' { "jsonrpc" : "2.0" , "id" : "c\\"all\\\\" , "params" : { "arguments" : { "outputs" : [ 1 , true , null , "x\\\\" , [ ] , { } ] , "inputs" : [ ] , "na\\"me" : "\\\\" } , "name" : "sa\\u0076e_workflow" } , "method" : "tools/call" } ',
  // Duplicated keys: the last wins, as in JSON.parse.
  '{"method":"initialize","params":{"name":"launch_run","arguments":{"inputs":[1,2,3]}},"method":"tools/call","params":{"name":"get_run","arguments":{"inputs":[1]}},"id":-1.5e3}',
  // Followed paths only: an `inputs` elsewhere, deep nesting, a `name` outside params.
  '{"id":1,"name":"launch_run","params":{"arguments":{"deep":[[[[[[[[[[{"inputs":[1,2]}]]]]]]]]]],"inputs":[[1,2],[3],{"a":[4]}]},"other":{"name":"x"},"name":"launch_run"},"method":"tools/call"}',
  // A batch (an array) names nothing.
  '[{"method":"tools/call","params":{"name":"launch_run"},"id":1}]',
];

describe("the /mcp call scanner", () => {
  it("reads what JSON.parse reads, for every cut of each body into two and three chunks", () => {
    for (const body of BODIES) {
      const expected = body.startsWith("[")
        ? { method: undefined, tool: undefined, id: undefined, inputs: 0, outputs: 0 }
        : parsed(body);
      const length = Buffer.byteLength(body);
      for (let a = 0; a <= length; a++) {
        expect(scan(body, [a]), `${body} cut at ${a}`).toEqual(expected);
        const b = Math.min(length, a + 1 + (a % 7));
        expect(scan(body, [a, b]), `${body} cut at ${a}, ${b}`).toEqual(expected);
      }
    }
  });

  it("a body cut short says what it has said so far: the tool before its arguments", () => {
    const scanner = new JsonRpcCallScanner();
    scanner.feed(
      Buffer.from(
        '{"method":"tools/call","params":{"name":"launch_run","arguments":{"files":{"a":{"base64":"AAAA',
      ),
    );
    expect(scanner.isLaunchRun).toBe(true);
    const other = new JsonRpcCallScanner();
    other.feed(Buffer.from('{"method":"tools/call","params":{"arguments":{"x":"AAAA'));
    expect(other.isLaunchRun).toBe(false);
  });

  it("keeps no memory for a body of brackets, and long strings are not captured", () => {
    const scanner = new JsonRpcCallScanner();
    scanner.feed(Buffer.from(`{"id":"${"i".repeat(10_000)}","method":"tools/call",`));
    for (let i = 0; i < 100; i++) scanner.feed(Buffer.alloc(64 * 1024, 0x5b));
    expect(scanner.id).toBeUndefined();
    expect(scanner.method).toBe("tools/call");
  });
});
