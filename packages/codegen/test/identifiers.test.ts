import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../src/cli.js";
import { assignIdentifiers, baseIdentifier, idSuffix, RESERVED_WORDS } from "../src/identifiers.js";
import { readSchemas } from "../src/read-definition.js";
import { cleanupTempDirs, definition, tempDir, writeJson } from "./helpers.js";

afterAll(cleanupTempDirs);

const isIdentifier = (s: string) => /^[\p{ID_Start}$_][\p{ID_Continue}$]*$/u.test(s);

describe("baseIdentifier", () => {
  it.each([
    ["Invoice intake", "invoiceIntake"],
    ["CRM contact sync", "crmContactSync"],
    ["INVOICE INTAKE", "invoiceIntake"],
    ["Sync CRM contacts", "syncCrmContacts"],
    ["supplier_portal-login check", "supplierPortalLoginCheck"],
    ["2024 report", "w2024Report"],
    ["", "workflow"],
    ["!!!", "workflow"],
    ["Ünïcödé façade", "ünïcödéFaçade"],
    ["請求書 処理", "請求書処理"],
    ["Résumé du jour", "résuméDuJour"],
    ["delete", "deleteWorkflow"],
    ["constructor", "constructorWorkflow"],
    ["toString", "toStringWorkflow"],
    ["hasOwnProperty", "hasOwnPropertyWorkflow"],
    ["valueOf", "valueOfWorkflow"],
    ["__proto__", "proto"],
    ["class", "classWorkflow"],
    ["Environment", "environmentWorkflow"],
    ["ｆｕｌｌ ｗｉｄｔｈ", "fullWidth"],
  ])("%j -> %s", (name, expected) => {
    const id = baseIdentifier(name);
    expect(id).toBe(expected);
    expect(isIdentifier(id)).toBe(true);
    expect(RESERVED_WORDS.has(id)).toBe(false);
  });

  it("always gives a valid identifier", () => {
    for (const name of [
      "😀 smile",
      "a\u200db",
      "$$$ money",
      "x-1-2",
      "名前",
      "٣ digits",
      "a.b.c",
      "\u2028",
      "null",
    ]) {
      const id = baseIdentifier(name);
      expect(isIdentifier(id), `${name} -> ${id}`).toBe(true);
      expect(() => new Function(`"use strict"; const ${id} = 1; return ${id};`)).not.toThrow();
    }
  });
});

describe("assignIdentifiers", () => {
  const colliding = [
    { id: "wf_b", name: "invoice-intake" },
    { id: "wf_a", name: "Invoice intake" },
    { id: "wf_c", name: "Invoice Intake!" },
  ];

  it("gives every member of a collision group a distinct id-derived suffix", () => {
    const ids = assignIdentifiers(colliding);
    expect(ids.get("wf_a")).toBe(`invoiceIntake_${idSuffix("wf_a")}`);
    expect(ids.get("wf_b")).toBe(`invoiceIntake_${idSuffix("wf_b")}`);
    expect(new Set(ids.values()).size).toBe(3);
  });

  it("is stable across regenerations, input order, and unrelated additions", () => {
    const first = assignIdentifiers(colliding);
    const again = assignIdentifiers([...colliding].reverse());
    const added = assignIdentifiers([
      ...colliding,
      { id: "wf_z", name: "Payroll" },
      { id: "wf_0", name: "Another one" },
    ]);
    for (const wf of colliding) {
      expect(again.get(wf.id)).toBe(first.get(wf.id));
      expect(added.get(wf.id)).toBe(first.get(wf.id));
    }
    const solo = assignIdentifiers([{ id: "wf_p", name: "Payroll" }]);
    expect(assignIdentifiers([{ id: "wf_p", name: "Payroll" }, ...colliding]).get("wf_p")).toBe(
      solo.get("wf_p"),
    );
  });

  it("treats names differing only in case as colliding (they name files)", () => {
    const ids = assignIdentifiers([
      { id: "wf_1", name: "Data sync" },
      { id: "wf_2", name: "data Sync" },
    ]);
    expect(ids.get("wf_1")?.toLowerCase()).not.toBe(ids.get("wf_2")?.toLowerCase());
  });

  it("pins aliases and rejects unusable or duplicate ones", () => {
    const ids = assignIdentifiers(colliding, { wf_a: "invoiceIntake" });
    expect(ids.get("wf_a")).toBe("invoiceIntake");
    expect(ids.get("wf_b")).toBe(`invoiceIntake_${idSuffix("wf_b")}`);
    expect(() => assignIdentifiers(colliding, { wf_a: "delete" })).toThrow(
      /not a usable identifier/,
    );
    expect(() => assignIdentifiers(colliding, { wf_a: "1x" })).toThrow(/not a usable identifier/);
    expect(() => assignIdentifiers(colliding, { wf_a: "same", wf_b: "same" })).toThrow(
      /pinned for both/,
    );
  });

  it("reads aliases from wfr.codegen.json through the CLI", async () => {
    const dir = tempDir();
    writeJson(
      join(dir, "schemas", "prod", "openapi.json"),
      definition(colliding, { environment: "prod" }),
    );
    writeJson(join(dir, "wfr.codegen.json"), {
      aliases: { prod: { wf_c: "invoiceIntakeLegacy" } },
    });
    const code = await main(["generate"], {
      cwd: dir,
      stdout: { write: () => true },
      stderr: { write: () => true },
    });
    expect(code).toBe(0);
    const model = readSchemas(join(dir, "schemas"), {
      aliases: { prod: { wf_c: "invoiceIntakeLegacy" } },
    });
    expect(model[0]?.workflows.find((w) => w.id === "wf_c")?.identifier).toBe(
      "invoiceIntakeLegacy",
    );
    const { existsSync } = await import("node:fs");
    expect(
      existsSync(join(dir, "packages", "generated", "src", "prod", "invoiceIntakeLegacy.js")),
    ).toBe(true);
  });
});
