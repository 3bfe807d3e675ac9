// docs/limits.md: each route's body budget, sent at ten times the budget as a stream (no
// Content-Length, so the server must count while it reads): the documented 413 BODY_TOO_LARGE,
// before the route runs. The client stops sending once it has the answer.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_LIMIT } from "../../src/admin/admin-routes.js";
import { OAUTH_BODY_LIMIT } from "../../src/agent/oauth/oauth-routes.js";
import { BODY_LIMIT } from "../../src/api/launch-body.js";
import { startEmulator } from "../../src/index.js";
import { PORTAL_LIMIT } from "../../src/server/surfaces.js";
import { FORM_LIMIT } from "../../src/web-app/guards.js";
import { DRAFT, http } from "../conformance/support.js";

let emu: Awaited<ReturnType<typeof startEmulator>>;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, clock: "virtual" });
});
afterAll(() => emu?.close());

/** Streams `total` bytes to `path` in 256 KiB chunks; resolves with the answer's status and code. */
function stream(
  path: string,
  total: number,
  headers: Record<string, string>,
): Promise<{ status: number; code: string | undefined; sent: number }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    let sent = 0;
    const req = request(`${emu.url}${path}`, { method: "POST", headers });
    req.on("response", (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString();
        let code: string | undefined;
        try {
          code = (JSON.parse(text) as { code?: string }).code;
        } catch {
          code = undefined;
        }
        resolve({ status: res.statusCode ?? 0, code, sent });
        req.destroy();
      });
      res.on("error", reject);
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    const pump = () => {
      while (sent < total && !answered) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe("route body budgets at ten times", { timeout: 300_000 }, () => {
  it("the admin API: 10 x 8 MiB streamed is 413 BODY_TOO_LARGE, answered before the body ended", async () => {
    const r = await stream("/_emulator/keys", 10 * ADMIN_LIMIT, {
      "content-type": "application/json",
    });
    expect(r).toMatchObject({ status: 413, code: "BODY_TOO_LARGE" });
    expect(r.sent).toBeLessThan(10 * ADMIN_LIMIT);
  });

  it("/mcp: 10 x 36 MiB streamed, with a token, is 413 BODY_TOO_LARGE", async () => {
    const token = await http("POST", `${emu.url}/_emulator/personal-access-tokens`, {
      environment: "production",
      name: "budget",
    });
    const r = await stream("/mcp", 10 * BODY_LIMIT, {
      "content-type": "application/json",
      authorization: `Bearer ${token.body.token}`,
    });
    expect(r).toMatchObject({ status: 413, code: "BODY_TOO_LARGE" });
    expect(r.sent).toBeLessThan(10 * BODY_LIMIT);
  });

  it("a portal action: 10 x 64 KiB streamed, signed in, is 413 and the draft stays a draft", async () => {
    const session = await http("POST", `${emu.url}/_emulator/portal-sessions`, {
      environment: "production",
    });
    const r = await stream(`/production/portal/workflows/${DRAFT}/enable`, 10 * PORTAL_LIMIT, {
      "content-type": "application/json",
      cookie: String(session.body.cookie),
    });
    expect(r).toMatchObject({ status: 413, code: "BODY_TOO_LARGE" });
  });

  it("a web application form: 10 x 1 MiB streamed, signed in, is refused with 413", async () => {
    const link = await http("POST", `${emu.url}/_emulator/sign-in-links`, {});
    const signIn = await fetch(String(link.body.url), { redirect: "manual" });
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const r = await stream("/_app/api-faults", 10 * FORM_LIMIT, {
      "content-type": "application/x-www-form-urlencoded",
      cookie,
    });
    expect(r.status).toBe(413);
  });

  it("the OAuth endpoints: 10 x 64 KiB streamed to registration, token and revocation is 413", async () => {
    for (const [path, type] of [
      ["/oauth/register", "application/json"],
      ["/oauth/token", "application/x-www-form-urlencoded"],
      ["/oauth/revoke", "application/x-www-form-urlencoded"],
    ] as const) {
      const r = await stream(path, 10 * OAUTH_BODY_LIMIT, { "content-type": type });
      expect(r, path).toMatchObject({ status: 413, code: "BODY_TOO_LARGE" });
    }
  });
});
