// The load client of the emulator-throughput case, in a process of its own so that the client's
// work never shares an event loop with the server it measures. Reads one JSON argument
// { url, token, body, concurrency, seconds, max, warmup, tag } and prints one JSON line:
// { requests, seconds, rps, p50, p99, statuses }.
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";

export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)];
}

function send(agent, url, headers, body) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", agent, headers }, (res) => {
      res.on("data", () => {});
      res.on("end", () => resolve(res.statusCode));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

export async function drive({ url, token, body, concurrency, seconds, max, warmup = 0, tag = "" }) {
  const payload = Buffer.from(body);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const base = {
    "content-type": "application/json",
    "content-length": String(payload.length),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
  let seq = 0;
  const one = () =>
    send(
      agent,
      url,
      { ...base, "idempotency-key": `bench-${tag}-${process.pid}-${seq++}` },
      payload,
    );
  for (let i = 0; i < warmup; i += concurrency)
    await Promise.all(Array.from({ length: Math.min(concurrency, warmup - i) }, one));
  const latencies = [];
  const statuses = {};
  let issued = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const worker = async () => {
    while (issued < max && performance.now() < deadline) {
      issued++;
      const t0 = performance.now();
      const status = await one();
      latencies.push(performance.now() - t0);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    seconds: elapsed,
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    statuses,
  };
}

if (process.argv[2] === "--drive") {
  console.log(JSON.stringify(await drive(JSON.parse(process.argv[3]))));
}
