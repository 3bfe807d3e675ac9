// The web application's pure parts, and its HTTP edge without a browser: escaping, filters,
// one-time links, a token never logged, forms refused without a session, revocation kept.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { redactSignInPath, SIGN_IN_LINK_TTL_MS, SignInLinks } from "../../src/access/sign-in.js";
import { startEmulator } from "../../src/index.js";
import type { RunRecord } from "../../src/model/types.js";
import { html } from "../../src/web-app/html.js";
import { RUN_LIST_ROWS, runMatches, runRows } from "../../src/web-app/pages.js";
import { parseAnswer } from "../../src/web-app/web-app.js";
import { Receiver } from "../conformance/receiver.js";
import {
  Harness,
  INVOICE,
  invoiceBody,
  type Json,
  PORTAL,
  portalBody,
  sleep,
} from "../conformance/support.js";

describe("pure parts", () => {
  it("escapes every interpolated value and keeps nested fragments", () => {
    const evil = `<img src=x onerror="alert(1)">'&`;
    const out =
      html`<p title="${evil}">${evil}${html`<b>${evil}</b>`}${[evil, html`<i>ok</i>`]}</p>`.text;
    expect(out).not.toContain("<img");
    expect(out).not.toContain('"alert');
    expect(out).toContain("<b>&#60;img");
    expect(out).toContain("<i>ok</i>");
  });

  it("filters runs by status, workflow, environment and a search in ids, key and metadata", () => {
    const run = {
      run_id: "run_abc",
      status: "succeeded",
      workflow_id: "wf_1",
      environment: "production",
      idempotency_key: "invoice-42",
      metadata: { customer: "Northwind" },
    } as unknown as RunRecord;
    const row = { run, workflowName: "Invoice intake" };
    const none = { status: "", workflow: "", environment: "", q: "" };
    expect(runMatches(row, none)).toBe(true);
    expect(runMatches(row, { ...none, status: "failed" })).toBe(false);
    expect(runMatches(row, { ...none, workflow: "wf_2" })).toBe(false);
    expect(runMatches(row, { ...none, environment: "staging" })).toBe(false);
    for (const q of ["RUN_ABC", "invoice-42", "northwind", "intake"])
      expect(runMatches(row, { ...none, q })).toBe(true);
    expect(runMatches(row, { ...none, q: "contoso" })).toBe(false);
  });

  it("the run history at ten times its rows shows the newest rows only, and says how many older runs match", () => {
    const rows = Array.from({ length: 10 * RUN_LIST_ROWS }, (_, i) => ({
      run: {
        run_id: `run_${i}`,
        status: "succeeded",
        workflow_id: "wf_1",
        environment: "production",
        workspace: "default",
        created_at: i,
        started_at: null,
        finished_at: i,
        idempotency_key: null,
      } as const,
      workflowName: "Invoice intake",
    }));
    const text = runRows(rows, 0).text;
    expect(text.match(/data-run-id=/g)).toHaveLength(RUN_LIST_ROWS);
    expect(text).toContain(`${9 * RUN_LIST_ROWS} older runs not shown`);
    expect(runRows(rows.slice(0, 3), 0).text).not.toContain("older runs");
  });

  it("a run's metadata is serialised for the search once, not on every search (the list re-searches every 1.5 s), and only its first 64 KiB", () => {
    const run = {
      run_id: "run_big",
      status: "succeeded",
      workflow_id: "wf_1",
      environment: "production",
      idempotency_key: null,
      metadata: { customer: "Contoso", notes: "x".repeat(100_000), past: "Northwind" },
    } as unknown as RunRecord;
    const row = { run, workflowName: "Invoice intake" };
    const none = { status: "", workflow: "", environment: "", q: "" };
    const stringify = vi.spyOn(JSON, "stringify");
    try {
      expect(runMatches(row, { ...none, q: "contoso" })).toBe(true);
      const first = stringify.mock.calls.length;
      expect(first).toBeGreaterThan(0);
      for (let i = 0; i < 4; i++) expect(runMatches(row, { ...none, q: "contoso" })).toBe(true);
      // Past the first 64 KiB of the metadata as JSON: not searched.
      expect(runMatches(row, { ...none, q: "northwind" })).toBe(false);
      expect(stringify.mock.calls.length).toBe(first);
    } finally {
      stringify.mockRestore();
    }
  });

  it("sign-in links work once and expire; their tokens are not logged", () => {
    const links = new SignInLinks();
    const url = links.create("http://127.0.0.1:1", 0);
    const token = url.split("/").pop() as string;
    expect(links.consume(token, 1)).toBe(true);
    expect(links.consume(token, 2)).toBe(false);
    const late = links.create("http://127.0.0.1:1", 0).split("/").pop() as string;
    expect(links.consume(late, SIGN_IN_LINK_TTL_MS + 1)).toBe(false);
    expect(redactSignInPath(`/_app/sign-in/${token}`)).toBe("/_app/sign-in/[redacted]");
    expect(links.csrfValid("session-a", links.csrfToken("session-a"))).toBe(true);
    expect(links.csrfValid("session-b", links.csrfToken("session-a"))).toBe(false);
  });

  it("reads an answer as JSON when it parses, else as the text typed", () => {
    expect(parseAnswer('{"approved":true}')).toEqual({ approved: true });
    expect(parseAnswer("approve it")).toBe("approve it");
  });
});

describe("HTTP edge", () => {
  const dirs: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("never logs the sign-in token, and a revoked key stays revoked after a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "web-app-"));
    dirs.push(dir);
    const data = join(dir, "journal.jsonl");
    const lines: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    vi.spyOn(process.stdout, "write").mockImplementation(((
      chunk: string | Uint8Array,
      ...rest: unknown[]
    ) => {
      if (String(chunk).includes("/_app/")) {
        lines.push(String(chunk));
        return true;
      }
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stdout.write);
    let emu = await startEmulator({ data, requestLog: "text" });
    try {
      const token = emu.signInUrl.split("/").pop() as string;
      const signIn = await fetch(emu.signInUrl, { redirect: "manual" });
      const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
      const keysPage = await (await fetch(`${emu.url}/_app/keys`, { headers: { cookie } })).text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(keysPage)?.[1] as string;
      const form = (body: string) =>
        fetch(`${emu.url}/_app/keys`, {
          method: "POST",
          headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
          body,
          redirect: "manual",
        });
      const created = await form(
        `csrf=${encodeURIComponent(csrf)}&environment=production&scopes=runs:read`,
      );
      expect(created.status).toBe(201);
      const key = /id="new-key">([^<]+)</.exec(await created.text())?.[1] as string;
      const read = () =>
        fetch(`${emu.url}/production/api/v1/runs/run_missing`, {
          headers: { authorization: `Bearer ${key}` },
        });
      expect((await read()).status).toBe(404);
      const listed = await (await fetch(`${emu.url}/_app/keys`, { headers: { cookie } })).text();
      const ids = [...listed.matchAll(/action="\/_app\/keys\/([0-9a-f]+)\/revoke"/g)].map(
        (m) => m[1],
      );
      expect(ids.length).toBe(1);
      const revoke = await fetch(`${emu.url}/_app/keys/${ids[0]}/revoke`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: `csrf=${encodeURIComponent(csrf)}`,
        redirect: "manual",
      });
      expect(revoke.status).toBe(303);
      expect((await read()).status).toBe(401);
      await emu.close();
      emu = await startEmulator({ data });
      expect((await read()).status).toBe(401);
      // The session cookie of the first process is not a session of the second one.
      expect((await fetch(`${emu.url}/`, { headers: { cookie } })).status).toBe(401);
      expect(lines.join("")).toContain("/_app/sign-in/[redacted]");
      expect(lines.join("")).not.toContain(token);
    } finally {
      await emu.close();
    }
  }, 60_000);

  it("arms callback delivery faults from the run page, as the admin API does", async () => {
    const rx = await Receiver.start();
    const h = await Harness.start({ allowLocalCallbacks: true });
    try {
      // Runs sit in a long wait, so only injected faults move them.
      await h.scenario("production", PORTAL, { steps: [{ wait_ms: 86_400_000 }, { succeed: {} }] });
      const c = await h.client();
      const twice = (await c.start(PORTAL, portalBody({ callback_url: rx.url("/twice") }))).run_id;
      const failing = (await c.start(PORTAL, portalBody({ callback_url: rx.url("/fail") }))).run_id;
      const silent = (await c.start(PORTAL, portalBody())).run_id;
      await h.advance(500);

      const signIn = await fetch((await h.admin("POST", "/sign-in-links")).body.url, {
        redirect: "manual",
      });
      const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
      const page = async (id: string) =>
        (await fetch(`${h.url}/_app/runs/production/${id}`, { headers: { cookie } })).text();
      const first = await page(twice);
      for (const label of [
        "Deliver the next callback twice",
        "Deliver the next callback late",
        "Fail the next attempts",
      ])
        expect(first).toContain(label);
      expect(await page(silent)).not.toContain(`/faults/callback-twice`);
      const csrf = /name="csrf" value="([^"]+)"/.exec(first)?.[1] as string;
      const post = async (id: string, kind: string, fields = "") => {
        const r = await fetch(`${h.url}/_app/runs/production/${id}/faults/${kind}`, {
          method: "POST",
          headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
          body: `csrf=${encodeURIComponent(csrf)}${fields}`,
          redirect: "manual",
        });
        expect(r.status).toBe(303);
        return decodeURIComponent(/msg=([^&]*)/.exec(r.headers.get("location") ?? "")?.[1] ?? "");
      };
      // Bad numbers are refused with the admin API's message, and nothing is armed.
      expect(await post(twice, "callback-late", "&delay_ms=abc")).toContain("delay_ms must be");
      expect(await post(twice, "callback-fail", "&attempts=11")).toContain("attempts must be");
      expect(await post(silent, "callback-twice")).toBe("the run has no callback_url");
      expect(await post(twice, "callback-twice")).toBe("callback fault callback-twice armed");
      expect(await post(failing, "callback-fail", "&attempts=1&status=502")).toBe(
        "callback fault callback-fail armed",
      );

      for (const id of [twice, failing])
        expect(
          (await h.admin("POST", `/environments/production/runs/${id}/faults/succeed`, {})).status,
        ).toBe(200);
      const attempts = async (id: string) =>
        ((await h.callbacks()) as Json[]).filter((a) => a.run_id === id);
      for (let i = 0; i < 400; i++) {
        if (rx.to("/twice").length >= 2 && (await attempts(failing)).length >= 2) break;
        await sleep(25);
      }
      const [a, b] = rx.to("/twice");
      expect(a?.body.event_id).toBeDefined();
      expect(b?.body.event_id).toBe(a?.body.event_id);
      expect((await attempts(twice)).filter((x) => x.injected === "twice")).toHaveLength(1);
      const failed = await attempts(failing);
      expect(failed.map((x) => [x.attempt, x.status, x.injected ?? null])).toEqual([
        [1, 502, "fail"],
        [2, 200, null],
      ]);
      // The late delivery was refused above, so none was held back.
      expect(rx.to("/twice")).toHaveLength(2);
      expect(rx.to("/fail")).toHaveLength(1);
      expect(await page(failing)).toContain("(injected: fail)");
    } finally {
      await h.close();
      await rx.close();
    }
  }, 60_000);
});

describe("reset from the workflows page", () => {
  it("forgets the environment's runs, as the admin API's reset does", async () => {
    const emu = await startEmulator({});
    try {
      const signIn = await fetch(emu.signInUrl, { redirect: "manual" });
      const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
      const page = await (await fetch(`${emu.url}/_app/workflows`, { headers: { cookie } })).text();
      expect(page).toContain('action="/_app/environments/production/reset"');
      // Each row's button names its workflow for screen readers ("Disable", alone, names nothing).
      expect(page).toMatch(
        /<button type="submit" aria-label="(Disable|Enable) [^"]+">(Disable|Enable)<\/button>/,
      );
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] as string;
      const key = (
        (await (
          await fetch(`${emu.url}/_emulator/keys`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ environment: "production" }),
          })
        ).json()) as { token: string }
      ).token;
      const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
      const launched = (await (
        await fetch(`${emu.url}/production/api/v1/automations/wf_P3mKs81a/runs`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({
            inputs: { portal_url: "https://p.example.com", account_label: "a" },
          }),
        })
      ).json()) as { run_id: string };
      const runUrl = `${emu.url}/production/api/v1/runs/${launched.run_id}`;
      expect((await fetch(runUrl, { headers: auth })).status).toBe(200);
      // Without the form token the reset is refused and nothing is forgotten.
      const refused = await fetch(`${emu.url}/_app/environments/production/reset`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: "",
        redirect: "manual",
      });
      expect(refused.status).toBe(403);
      expect((await fetch(runUrl, { headers: auth })).status).toBe(200);
      const reset = await fetch(`${emu.url}/_app/environments/production/reset`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: `csrf=${encodeURIComponent(csrf)}`,
        redirect: "manual",
      });
      expect(reset.status).toBe(303);
      expect((await fetch(runUrl, { headers: auth })).status).toBe(404);
      const list = await (await fetch(`${emu.url}/`, { headers: { cookie } })).text();
      expect(list).not.toContain(launched.run_id);
    } finally {
      await emu.close();
    }
  }, 60_000);
});

describe("launch again from the run page", () => {
  it("launches a new run with the edited inputs, the run's metadata and recorded attachments, marked app", async () => {
    const h = await Harness.start();
    try {
      const c = await h.client();
      const first = await c.start(INVOICE, invoiceBody({ metadata: { order: "o-1" } }));
      const signIn = await fetch((await h.admin("POST", "/sign-in-links")).body.url, {
        redirect: "manual",
      });
      const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
      const page = await (
        await fetch(`${h.url}/_app/runs/production/${first.run_id}`, { headers: { cookie } })
      ).text();
      expect(page).toContain("Launch again");
      expect(page).toContain("&#34;vendor_name&#34;: &#34;Acme Paper Co&#34;");
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] as string;
      const relaunch = (inputs: string) =>
        fetch(`${h.url}/_app/runs/production/${first.run_id}/relaunch`, {
          method: "POST",
          headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
          body: `csrf=${encodeURIComponent(csrf)}&inputs=${encodeURIComponent(inputs)}`,
          redirect: "manual",
        });
      const edited = { ...(invoiceBody().inputs as Record<string, Json>), amount: 99 };
      const ok = await relaunch(JSON.stringify(edited));
      expect(ok.status).toBe(303);
      const location = ok.headers.get("location") ?? "";
      const newId = /\/_app\/runs\/production\/(run_[^?]+)\?/.exec(location)?.[1] as string;
      expect(newId).toBeDefined();
      expect(newId).not.toBe(first.run_id);
      const history = (await h.admin("GET", `/environments/production/runs/${newId}`)).body;
      expect(history.inputs).toMatchObject({ vendor_name: "Acme Paper Co", amount: 99 });
      expect(history.metadata).toEqual({ order: "o-1" });
      expect(history.source).toBe("app");
      expect(history.attachments).toMatchObject([{ id: "att_1", filename: "invoice.pdf" }]);

      // Refusals come back to the run page as the API's words.
      const refused = await relaunch(JSON.stringify({ ...edited, amount: "lots" }));
      expect(decodeURIComponent(refused.headers.get("location") ?? "")).toContain(
        "not launched: INVALID_INPUTS",
      );
      const notJson = await relaunch("[1]");
      expect(decodeURIComponent(notJson.headers.get("location") ?? "")).toContain(
        "inputs must be a JSON object",
      );
    } finally {
      await h.close();
    }
  });
});
