// Peak RSS over baseline for launching one 25 MiB attachment, before (the
// launch path as it was on main: base64 encoded in JavaScript into a string,
// JSON.stringify, the string through openapi-fetch's Request, then copied
// again with request.arrayBuffer() by the retrying fetch) and after (the
// built @wfr/runtime: body built once as bytes, native base64 written into
// it, sent as is). Each side runs in its own child process so the peaks do
// not mix; both sides run in one invocation. Needs the runtime built:
//   npx --yes pnpm@10.34.8 --filter @wfr/runtime build && node bench/attachment-memory.mjs
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const MiB = 1024 * 1024;
const FILE_BYTES = 25 * MiB; // 26,214,400: the per-attachment limit
const here = fileURLToPath(import.meta.url);
const root = join(dirname(here), "..");

// --- the old encoder, verbatim from main (packages/runtime/src/base64.ts) ---
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const CHUNK_BYTES = 3 * 16_384;
function encodeChunk(bytes, start, end) {
  const codes = [];
  let index = start;
  for (; index + 2 < end; index += 3) {
    const triple = (bytes[index] << 16) | (bytes[index + 1] << 8) | bytes[index + 2];
    codes.push(
      ALPHABET.charCodeAt(triple >> 18),
      ALPHABET.charCodeAt((triple >> 12) & 63),
      ALPHABET.charCodeAt((triple >> 6) & 63),
      ALPHABET.charCodeAt(triple & 63),
    );
  }
  const remaining = end - index;
  if (remaining > 0) {
    const first = bytes[index];
    const second = remaining === 2 ? bytes[index + 1] : 0;
    const pair = (first << 16) | (second << 8);
    codes.push(
      ALPHABET.charCodeAt(pair >> 18),
      ALPHABET.charCodeAt((pair >> 12) & 63),
      remaining === 2 ? ALPHABET.charCodeAt((pair >> 6) & 63) : 61,
      61,
    );
  }
  return String.fromCharCode(...codes);
}
function oldEncodeBase64(bytes) {
  const parts = [];
  for (let start = 0; start < bytes.length; start += CHUNK_BYTES)
    parts.push(encodeChunk(bytes, start, Math.min(start + CHUNK_BYTES, bytes.length)));
  return parts.join("");
}

async function startSink() {
  let received = 0;
  const server = createServer((req, res) => {
    req.on("data", (chunk) => {
      received += chunk.length;
    });
    req.on("end", () => {
      res.writeHead(202, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ run_id: "run_1", workflow_id: "wf_1", status: "queued", metadata: {} }),
      );
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/api/v1`,
    received: () => received,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

async function measure(side) {
  const sink = await startSink();
  const bytes = new Uint8Array(FILE_BYTES);
  for (let index = 0; index < bytes.length; index += 1) bytes[index] = (index * 31) & 255;
  const runtime = await import(join(root, "packages/runtime/dist/index.js"));
  globalThis.gc();
  const baseline = process.resourceUsage().maxRSS * 1024;
  const started = performance.now();
  let encodeMs = 0;
  if (side === "before") {
    const encodeStart = performance.now();
    const base64 = oldEncodeBase64(bytes);
    encodeMs = performance.now() - encodeStart;
    const body = JSON.stringify({
      inputs: { invoice_pdf: { attachment_id: "att_1" } },
      input_context: {
        attachments: [{ id: "att_1", filename: "a.pdf", mimeType: "application/pdf", base64 }],
      },
    });
    const request = new Request(`${sink.url}/automations/wf_1/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const copy = new Uint8Array(await request.arrayBuffer());
    const response = await fetch(request.url, {
      method: "POST",
      headers: request.headers,
      body: copy,
    });
    await response.arrayBuffer();
  } else {
    const wfr = runtime.createClient({ baseUrl: sink.url, apiKey: "wfr_bench_key" });
    const encodeStart = performance.now();
    await wfr.launch("wf_1", {
      inputs: {
        invoice_pdf: runtime.file(bytes, { filename: "a.pdf", mimeType: "application/pdf" }),
      },
    });
    encodeMs = performance.now() - encodeStart; // whole launch, encoding included
  }
  const peak = process.resourceUsage().maxRSS * 1024;
  const result = {
    side,
    bodyBytes: sink.received(),
    peakOverBaselineBytes: peak - baseline,
    encodeOrLaunchMs: Math.round(encodeMs),
    totalMs: Math.round(performance.now() - started),
  };
  await sink.close();
  return result;
}

if (process.argv[2] === "--child") {
  console.log(JSON.stringify(await measure(process.argv[3])));
} else {
  const rows = ["before", "after"].map((side) =>
    JSON.parse(
      execFileSync(process.execPath, ["--expose-gc", here, "--child", side], { encoding: "utf8" }),
    ),
  );
  const mib = (n) => `${(n / MiB).toFixed(1)} MiB`;
  console.log(`one ${mib(FILE_BYTES)} attachment`);
  for (const row of rows) {
    console.log(
      `${row.side.padEnd(7)} body ${mib(row.bodyBytes)}  peak RSS over baseline ${mib(row.peakOverBaselineBytes)} (${(row.peakOverBaselineBytes / row.bodyBytes).toFixed(2)}x body)  ${row.side === "before" ? "JS base64" : "whole launch"} ${row.encodeOrLaunchMs} ms`,
    );
  }
  const [before, after] = rows;
  console.log(
    `ratio after/before peak: ${(after.peakOverBaselineBytes / before.peakOverBaselineBytes).toFixed(2)}`,
  );
}
