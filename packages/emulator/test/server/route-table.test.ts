// The README's route tables are the code's: every row of every table is listed there.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { routeTables, type SurfaceHost } from "../../src/server/surfaces.js";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const section = readme.slice(
  readme.indexOf("## Route table and middleware"),
  readme.indexOf("## Admin API (`/_emulator/`"),
);

describe("route tables", () => {
  const tables = routeTables({} as SurfaceHost);
  for (const [name, rows] of Object.entries(tables)) {
    it(`the README lists every ${name} route`, () => {
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(section, `${row.method} ${row.path}`).toContain(`\`${row.path}\``);
        const method = row.method === "ALL" ? "any" : row.method;
        const listed = section
          .split("\n")
          .some((l) => l.includes(`\`${row.path}\``) && l.startsWith(`| ${method} `));
        expect(listed, `${row.method} ${row.path}`).toBe(true);
      }
    });
  }
});
