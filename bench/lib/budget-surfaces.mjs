// The input-budgets case's surfaces beyond the emulator's body routes (docs/limits.md): drafts,
// scenarios and the run history's metadata search on the emulator; a recorded-run file replayed
// in a test's process; a callback receiver; the invoice desk. Each sends ten times its budget.
import { execFileSync } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChild, startDeskChild } from "./budget-children.mjs";
import { filler, KiB, MiB, mcpSession, send, toolCall, toolError } from "./budget-send.mjs";

const INVOICE = "wf_P7Qd2Lx9";
const json = { "content-type": "application/json" };

async function admin(url, method, path, body) {
  const r = await fetch(`${url}/_emulator${path}`, {
    method,
    headers: json,
    body: JSON.stringify(body),
  });
  return r.json();
}

/** The emulator's drafts, scenarios and metadata search. */
async function emulatorSurfaces(emulator) {
  const { url, pid } = emulator;
  const target = { pid, poll: `${url}/_emulator/clock` };
  const pat = (await admin(url, "POST", "/personal-access-tokens", { environment: "production" }))
    .token;
  const mcp = await mcpSession(url, pat);
  const key = (await admin(url, "POST", "/keys", { environment: "production" })).token;
  const link = (await admin(url, "POST", "/sign-in-links", {})).url;
  const cookie = (
    (await fetch(link, { redirect: "manual" })).headers.get("set-cookie") ?? ""
  ).split(";")[0];
  const draft = (argumentChunks) => async () => {
    const r = await send(`${url}/mcp`, {
      headers: mcp,
      chunks: toolCall("save_workflow", argumentChunks()),
    });
    return { ...r, refusal: toolError(r.text).split(":")[0] };
  };
  const isDraftRefusal = (a) => a.refusal === "DRAFT_TOO_LARGE";
  let searches = 0;
  return [
    {
      label: "draft, 10 x 1 MiB as JSON (save_workflow)",
      // Read through by the /mcp endpoint past the draft's budget, never kept nor parsed.
      budget: MiB,
      target,
      send: draft(function* () {
        yield '{"name":"Too many bytes","inputs":[],"outputs":[],"scenario":{"steps":[{"event":{"type":"step.note","text":"';
        yield* filler(10 * MiB);
        yield '"}}]}}';
      }),
      refused: isDraftRefusal,
    },
    {
      label: "draft, 10 x 2,000 fields (save_workflow)",
      // 600 KiB of JSON: held to the draft's byte budget.
      budget: MiB,
      target,
      send: draft(function* () {
        // 64 KiB writes, as a client sends a body (a write per field arrives as 20,000 small
        // socket reads, whose buffers alone grow any route of the emulator by about 10 MiB).
        let pending = '{"name":"Too many fields","outputs":[],"inputs":[';
        for (let i = 0; i < 20_000; i++) {
          pending += `${i ? "," : ""}{"name":"f${i}","type":"text"}`;
          if (pending.length >= 64 * KiB) {
            yield pending;
            pending = "";
          }
        }
        yield `${pending}]}`;
      }),
      refused: isDraftRefusal,
    },
    {
      label: "scenario, 10 x 10,000 steps (admin API)",
      // Steps are held to the admin API's body budget, which carries them.
      budget: 8 * MiB,
      target,
      send: async () => {
        const r = await send(
          `${url}/_emulator/environments/production/workflows/${INVOICE}/scenario`,
          {
            method: "PUT",
            headers: json,
            chunks: (function* () {
              yield '{"steps":[';
              for (let i = 0; i < 100_000; i += 1000)
                yield `${i ? "," : ""}${Array(1000).fill('{"wait_ms":1}').join(",")}`;
              yield "]}";
            })(),
          },
        );
        return {
          ...r,
          refusal: /at most 10000/.test(r.text) ? "at most 10000 steps" : r.text.slice(0, 80),
        };
      },
      refused: (a) => a.status === 400 && a.refusal === "at most 10000 steps",
    },
    {
      label: "metadata search, 10 runs x 10 x 64 KiB of metadata",
      budget: 10 * 64 * KiB,
      target,
      // Ten new runs each time (a run's searchable text is computed once), launched before the
      // measurement; the search is what is measured.
      prepare: async () => {
        searches += 1;
        for (let i = 0; i < 10; i++) {
          const r = await fetch(`${url}/production/api/v1/automations/${INVOICE}/runs`, {
            method: "POST",
            headers: { ...json, authorization: `Bearer ${key}` },
            body: JSON.stringify({
              inputs: { vendor_name: "A", amount: 1, invoice_pdf: { attachment_id: "a1" } },
              input_context: {
                attachments: [
                  { id: "a1", filename: "i.pdf", mimeType: "application/pdf", base64: "JVBERg==" },
                ],
              },
              metadata: { note: "x".repeat(640 * KiB), tag: `beyond-the-budget-${searches}` },
            }),
          });
          if (r.status !== 202)
            throw new Error(`launch: ${r.status} ${(await r.text()).slice(0, 200)}`);
        }
      },
      send: async () => {
        const r = await fetch(`${url}/_app/runs/rows?q=beyond-the-budget-${searches}`, {
          headers: { cookie },
        });
        const text = await r.text();
        return {
          status: r.status,
          text,
          refusal: text.includes("No runs match")
            ? "not searched past the budget"
            : "found past the budget",
        };
      },
      refused: (a) => a.refusal === "not searched past the budget",
    },
  ];
}

/** A recorded-run file ten times its budget, through a pipe (its size says nothing), replayed. */
async function replaySurface() {
  const child = await startChild("replay");
  const dir = mkdtempSync(join(tmpdir(), "bench-replay-"));
  const fifo = join(dir, "recorded-run.json");
  execFileSync("mkfifo", [fifo]);
  return {
    stop: async () => {
      await child.stop();
      rmSync(dir, { recursive: true, force: true });
    },
    surface: {
      label: "recorded-run file, 10 x 16 MiB through a pipe (testing kit's replay)",
      budget: 16 * MiB,
      target: { pid: child.pid, poll: `${child.url}/_emulator/clock` },
      send: async () => {
        const answer = child.ask({ replay: fifo });
        const out = createWriteStream(fifo);
        out.on("error", () => {});
        const chunks = filler(160 * MiB);
        const pump = () => {
          // Not for-of: leaving it to wait for "drain" would close the generator.
          for (let next = chunks.next(); !next.done; next = chunks.next())
            if (!out.write(next.value)) return void out.once("drain", pump);
          out.end();
        };
        pump();
        const { replayed } = await answer;
        out.destroy();
        return { status: 0, text: replayed, refusal: replayed.split(":")[0] };
      },
      refused: (a) => a.refusal === "RecordedRunError" && /more than 16777216/.test(a.text),
    },
  };
}

/** A callback receiver's delivery and the invoice desk's sign-in, forms, upload and callbacks. */
async function receiverAndDesk(emulator) {
  const receiver = await startChild("receiver");
  const desk = await startDeskChild(emulator.url);
  const deskTarget = { pid: desk.pid, poll: `${desk.url}/login` };
  const signedIn = await fetch(`${desk.url}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: desk.url },
    body: "username=operator&password=correct+horse",
    redirect: "manual",
  });
  const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0];
  const post = (base, path, budget, type, target) => ({
    label: `${target === deskTarget ? "invoice desk" : "callback receiver"} ${path} (${budget >= MiB ? `${(budget / MiB).toFixed(budget % MiB ? 2 : 0)} MiB` : `${budget / KiB} KiB`} x 10)`,
    budget,
    target,
    send: () =>
      send(`${base}${path}`, {
        headers: {
          "content-type": type,
          origin: base,
          ...(target === deskTarget ? { cookie } : {}),
        },
        chunks: filler(10 * budget),
      }),
    refused: (a) => a.status === 413,
  });
  const form = "application/x-www-form-urlencoded";
  return {
    stop: async () => {
      await desk.stop();
      await receiver.stop();
    },
    surfaces: [
      post(receiver.url, "/wfr", MiB, "application/json", {
        pid: receiver.pid,
        poll: receiver.url,
      }),
      post(desk.url, "/login", 16 * KiB, form, deskTarget),
      post(desk.url, "/invoices/INV-1/answer", 64 * KiB, form, deskTarget),
      post(
        desk.url,
        "/invoices",
        25 * MiB + 64 * KiB,
        "multipart/form-data; boundary=bench",
        deskTarget,
      ),
      post(desk.url, "/callbacks/wfr", MiB, "application/json", deskTarget),
    ],
  };
}

/** Every surface above, and how to stop the processes they started. */
export async function otherSurfaces(emulator) {
  const replay = await replaySurface();
  const servers = await receiverAndDesk(emulator);
  return {
    surfaces: [...(await emulatorSurfaces(emulator)), replay.surface, ...servers.surfaces],
    stop: async () => {
      await servers.stop();
      await replay.stop();
    },
  };
}
