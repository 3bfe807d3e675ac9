// The root README's "Testing your code" example is test/readme-example.test.ts, which the suite
// runs; this holds the two equal, so the copy-paste example cannot drift.
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";

it("the root README's testing example is the example this suite runs", () => {
  const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("## Testing your code"));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  const example = readFileSync(new URL("./readme-example.test.ts", import.meta.url), "utf8");
  expect(block).toBe(example);
});
