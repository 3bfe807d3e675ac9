import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { Harness, http, type Json } from "./support.js";

const PRODUCTION = {
  wf_P7Qd2Lx9: { name: "Invoice intake", state: "enabled" },
  wf_P3mKs81a: { name: "Supplier portal login check", state: "enabled" },
  wf_P0ZrTt55: { name: "Draft customer reply", state: "enabled" },
  wf_P9hHc2Vb: { name: "CRM contact sync", state: "enabled" },
  wf_P1dRaft0: { name: "Quarterly close report", state: "draft" },
} as const;

let h: Harness;
let token: string;
const tmpDirs: string[] = [];

beforeAll(async () => {
  h = await Harness.start();
  token = await h.key();
});
afterAll(async () => {
  await h?.close();
  for (const d of tmpDirs) await rm(d, { recursive: true, force: true });
});

async function definition(harness: Harness, env: string, ext = "json") {
  return http("GET", `${harness.url}/${env}/api-docs/openapi.${ext}`, undefined, {
    authorization: `Bearer ${token}`,
  });
}

function resolve(doc: Json, schema: Json): Json {
  let s = schema;
  for (let i = 0; i < 10 && s && typeof s.$ref === "string"; i++) {
    const path = s.$ref.replace(/^#\//, "").split("/");
    s = path.reduce((acc: Json, k: string) => acc?.[k], doc);
  }
  return s;
}

function launchOps(doc: Json): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    const op = item?.post;
    const m = /^\/automations\/([^/]+)\/runs$/.exec(path);
    if (m && op?.["x-workflow"]) out.set(m[1] as string, op);
  }
  return out;
}

function launchSchema(doc: Json, op: Json): Json {
  return resolve(doc, op.requestBody.content["application/json"].schema);
}

describe("Definition download", () => {
  it("Each workflow has its own generated input schema and examples (per environment, downloadable as an OpenAPI definition)", async () => {
    const r = await definition(h, "production");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type") ?? "").toMatch(/json/);
    const doc = r.body;
    expect(String(doc.openapi)).toMatch(/^3\.(0|1)\./);
    expect(doc.info["x-environment"]).toBe("production");
    expect(typeof doc.info["x-workspace"]).toBe("string");
    expect(doc.servers[0].url).toBe(`${h.url}/production/api/v1`);
    const ops = launchOps(doc);
    expect([...ops.keys()].sort()).toEqual(Object.keys(PRODUCTION).sort());
    for (const [id, want] of Object.entries(PRODUCTION)) {
      const wf = ops.get(id)["x-workflow"];
      expect(wf.id).toBe(id);
      expect(wf.name).toBe(want.name);
      expect(wf.state).toBe(want.state);
      expect(Number.isInteger(wf.revision)).toBe(true);
    }
    const inv = launchSchema(doc, ops.get("wf_P7Qd2Lx9"));
    expect(inv.additionalProperties).toBe(false);
    expect(inv.properties.model.enum.sort()).toEqual(["flash", "lite", "max", "pro"]);
    expect(inv.properties.idempotency_key.maxLength).toBe(200);
    const inputs = resolve(doc, inv.properties.inputs);
    expect(inputs.additionalProperties).toBe(false);
    expect([...inputs.required].sort()).toEqual(["amount", "invoice_pdf", "vendor_name"]);
    expect(inputs.properties.currency.default).toBe("USD");
    expect(inputs.properties.paid.default).toBe(false);
    expect(inputs.properties.vendor_name["x-input-type"]).toBe("text");
    const portal = launchSchema(doc, ops.get("wf_P3mKs81a"));
    expect(portal.properties.model).toBeUndefined();
  });

  it("The emitted definition passes an OpenAPI validator", async () => {
    for (const env of ["production", "staging"]) {
      const r = await definition(h, env);
      const v = new Validator();
      const res = await v.validate(r.body);
      expect(res.errors ?? [], env).toEqual([]);
      expect(res.valid).toBe(true);
    }
  });

  it("The definition is also downloadable as YAML with the same content", async () => {
    const json = await definition(h, "staging");
    const yaml = await definition(h, "staging", "yaml");
    expect(yaml.status).toBe(200);
    expect(parseYaml(yaml.text)).toEqual(json.body);
    const states = Object.fromEntries(
      [...launchOps(json.body)].map(([id, op]) => [id, op["x-workflow"].state]),
    );
    expect(states.wf_S6oFF000).toBe("disabled");
  });

  it("Round-trip: twin mode started from a downloaded definition serves the same workflows", async () => {
    const dir = await mkdtemp(join(tmpdir(), "wfr-twin-"));
    tmpDirs.push(dir);
    const originals: Record<string, Json> = {};
    for (const env of ["production", "staging"]) {
      const r = await definition(h, env);
      originals[env] = r.body;
      await mkdir(join(dir, env));
      await writeFile(join(dir, env, "openapi.json"), r.text);
    }
    const twin = await Harness.start({ fromSchemas: dir });
    try {
      const twinToken = await twin.key("production");
      for (const env of ["production", "staging"]) {
        const r = await http("GET", `${twin.url}/${env}/api-docs/openapi.json`, undefined, {
          authorization: `Bearer ${twinToken}`,
        });
        expect(r.status).toBe(200);
        const a = launchOps(originals[env]);
        const b = launchOps(r.body);
        expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
        for (const [id, op] of a) {
          const other = b.get(id);
          expect(other["x-workflow"].name).toBe(op["x-workflow"].name);
          expect(other["x-workflow"].state).toBe(op["x-workflow"].state);
          const ia = resolve(originals[env], launchSchema(originals[env], op).properties.inputs);
          const ib = resolve(r.body, launchSchema(r.body, other).properties.inputs);
          expect(JSON.stringify(ib)).toBe(JSON.stringify(ia));
        }
        expect(r.body.servers[0].url).toBe(`${twin.url}/${env}/api/v1`);
      }
      // The twin accepts and rejects launches as the original does.
      const auth = { authorization: `Bearer ${twinToken}` };
      const ok = await http(
        "POST",
        `${twin.base()}/automations/wf_P9hHc2Vb/runs`,
        { inputs: { contacts: [] } },
        auth,
      );
      expect(ok.status).toBe(202);
      const bad = await http(
        "POST",
        `${twin.base()}/automations/wf_P9hHc2Vb/runs`,
        { inputs: { contacts: "[]" } },
        auth,
      );
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe("INVALID_INPUTS");
      const draft = await http(
        "POST",
        `${twin.base()}/automations/wf_P1dRaft0/runs`,
        { inputs: { quarter: "Q1" } },
        auth,
      );
      expect(draft.status).toBe(409);
    } finally {
      await twin.close();
    }
  });

  it("File outputs are returned as download references; callers use those and never construct storage URLs", async () => {
    const twin = await Harness.start({
      fromSchemas: fileURLToPath(new URL("../../../../schemas", import.meta.url)),
    });
    try {
      const c = await twin.client("sample");
      const auth = { authorization: `Bearer ${c.token}` };
      await twin.scenario("sample", "wf_P3mKs81a", { steps: [{ succeed: {} }] });
      const run = await c.start("wf_P3mKs81a", {
        inputs: { portal_url: "https://p.example/login", account_label: "x" },
      });
      await c.untilTerminal(run.run_id, { stepMs: 500 });
      const res = await c.api("GET", `/runs/${run.run_id}/result`);
      expect(res.status).toBe(200);
      const file = res.body.outputs?.screenshot;
      expect(file, JSON.stringify(res.body.outputs)).toBeTruthy();
      expect(typeof file.filename).toBe("string");
      expect(() => new URL(file.download_url)).not.toThrow();
      const dl = await fetch(file.download_url, { headers: auth });
      const bytes = Buffer.from(await dl.arrayBuffer());
      expect(dl.status).toBe(200);
      if (typeof file.size_bytes === "number") expect(bytes.length).toBe(file.size_bytes);
    } finally {
      await twin.close();
    }
  });

  it("Twin mode synthesizes outputs deterministically from the output schema (declared fields, declared types)", async () => {
    const twin = await Harness.start({
      fromSchemas: fileURLToPath(new URL("../../../../schemas", import.meta.url)),
    });
    try {
      const c = await twin.client("sample");
      const auth = { authorization: `Bearer ${c.token}` };
      await twin.scenario("sample", "wf_P9hHc2Vb", { steps: [{ succeed: {} }] });
      const run = await c.start("wf_P9hHc2Vb", { inputs: { contacts: [] } });
      await c.untilTerminal(run.run_id, { stepMs: 500 });
      const res = await c.api("GET", `/runs/${run.run_id}/result`);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("succeeded");
      const def = await http("GET", `${twin.url}/sample/api-docs/openapi.json`, undefined, auth);
      const op = launchOps(def.body).get("wf_P9hHc2Vb");
      const outSchema = resolve(def.body, op["x-workflow"].outputs);
      const outputs = res.body.outputs;
      expect(outputs).toBeTypeOf("object");
      expect(outputs).not.toBeNull();
      // Every synthesized field is declared and has the declared JSON type.
      for (const [k, v] of Object.entries<Json>(outputs)) {
        const prop = resolve(def.body, outSchema.properties?.[k]);
        expect(prop, `output ${k} is declared`).toBeDefined();
        const types = ([] as string[]).concat(prop.type ?? []);
        const actual = Array.isArray(v) ? "array" : v === null ? "null" : typeof v;
        if (types.length > 0) {
          expect(
            types.some((t) => t === actual || (t === "integer" && Number.isInteger(v))),
            `output ${k}: ${actual} vs ${types}`,
          ).toBe(true);
        }
      }
      for (const req of outSchema.required ?? []) expect(outputs).toHaveProperty(req);
      // Deterministic: reading the same run again gives the same outputs.
      const again = await c.api("GET", `/runs/${run.run_id}/result`);
      expect(again.body.outputs).toEqual(outputs);
    } finally {
      await twin.close();
    }
  });
});
