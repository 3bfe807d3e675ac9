// The web application's pure parts, and its HTTP edge without a browser: escaping, filters,
// one-time links, a token never logged, forms refused without a session, revocation kept.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startEmulator } from "../../src/index.js";
import type { RunRecord } from "../../src/types.js";
import { html } from "../../src/web-app/html.js";
import { runMatches } from "../../src/web-app/pages.js";
import { redactSignInPath, SIGN_IN_LINK_TTL_MS, SignInLinks } from "../../src/web-app/sign-in.js";
import { parseAnswer } from "../../src/web-app/web-app.js";

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
});
