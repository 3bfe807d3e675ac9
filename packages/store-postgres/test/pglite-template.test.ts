// openPglite: a new database starts from the template dump (made by the first
// new database), an existing one opens as it is, a broken template is replaced.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { defaultTemplatePath, openPglite } from "../src/pglite-template.js";

const dir = mkdtempSync(join(tmpdir(), "wfr-pglite-template-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function tables(db: PGlite): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
  );
  return rows.map((row) => row.name);
}

describe("openPglite", () => {
  it("keeps the template in the user's cache, keyed by PGlite's version", () => {
    const saved = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = "/tmp/wfr-cache-home";
    try {
      expect(defaultTemplatePath()).toMatch(
        /^\/tmp\/wfr-cache-home\/wfr\/pglite-\d+\.\d+\.\d+-template\.tar$/,
      );
    } finally {
      if (saved === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = saved;
    }
  });

  it("keeps the first new database's pristine dump, and starts the next new ones from it", async () => {
    const template = join(dir, "cache", "template.tar");
    const first = await openPglite(join(dir, "first"), template);
    expect(existsSync(template)).toBe(true);
    expect(await tables(first)).toEqual([]);
    await first.close();

    // A template with a marker in it proves that a new database is loaded from the template.
    const marked = await openPglite("memory", template);
    await marked.exec("CREATE TABLE from_template (x int)");
    const markedTemplate = join(dir, "marked.tar");
    writeFileSync(
      markedTemplate,
      new Uint8Array(await (await marked.dumpDataDir("none")).arrayBuffer()),
    );
    await marked.close();
    for (const target of [join(dir, "second"), "memory"]) {
      const db = await openPglite(target, markedTemplate);
      expect(await tables(db)).toEqual(["from_template"]);
      await db.close();
    }
  });

  it("opens an existing database as it is, whatever the template", async () => {
    const target = join(dir, "existing");
    const db = await openPglite(target, join(dir, "cache", "template.tar"));
    await db.exec("CREATE TABLE kept (x int)");
    await db.close();
    const again = await openPglite(target, join(dir, "marked.tar"));
    expect(await tables(again)).toEqual(["kept"]);
    await again.close();
  });

  it("replaces a template it cannot load (runs initdb instead)", async () => {
    const broken = join(dir, "broken.tar");
    writeFileSync(broken, "not a tar");
    const db = await openPglite(join(dir, "after-broken"), broken);
    expect(await tables(db)).toEqual([]);
    await db.close();
    expect((await import("node:fs")).statSync(broken).size).toBeGreaterThan(1_000_000);
  });
});
