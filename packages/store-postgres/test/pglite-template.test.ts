// openPglite: a new database starts from the template dump (made by the first
// new database), on disk as a copy of the template's folder (made once from the
// dump), an existing one opens as it is, a broken template is replaced.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { defaultTemplatePath, openPglite, templateFolderOf } from "../src/pglite-template.js";

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
    for (const target of [join(dir, "second"), join(dir, "third"), "memory"]) {
      const db = await openPglite(target, markedTemplate);
      expect(await tables(db)).toEqual(["from_template"]);
      await db.close();
    }
    // The databases on disk are copies of the folder made from the dump: a change to one is in
    // neither the folder nor the next copy.
    expect(existsSync(join(templateFolderOf(markedTemplate), "PG_VERSION"))).toBe(true);
    const changed = await openPglite(join(dir, "second"), markedTemplate);
    await changed.exec("CREATE TABLE only_in_second (x int)");
    await changed.close();
    const fourth = await openPglite(join(dir, "fourth"), markedTemplate);
    expect(await tables(fourth)).toEqual(["from_template"]);
    await fourth.close();
  });

  it("removes a template folder that does not open, and starts the database from the dump", async () => {
    const template = join(dir, "cache", "template.tar");
    const folder = templateFolderOf(template);
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "PG_VERSION"), "17\n"); // a data folder in name only
    const db = await openPglite(join(dir, "after-broken-folder"), template);
    expect(await tables(db)).toEqual([]);
    await db.close();
    expect(existsSync(folder)).toBe(false);
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
