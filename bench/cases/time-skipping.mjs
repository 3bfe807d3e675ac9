// A human wait followed to its expiry through @wfr/testing: wall time and clock jumps for a
// checkpoint that expires after 10 minutes, 1 hour and 24 hours, the client polling with
// `waitForRun({ keepWaitingOnHuman })` at the runtime's default backoff (1 s doubling to 15 s).
// Ours: the kit as shipped, whose clock goes to the emulator's next event (packages/testing
// README "How time skips"). Anchor: the same environment and emulator, with a second clock over
// the same admin API that does not ask the emulator for its events, so it jumps only to the
// client's next wake-up, one poll at a time (the rule before). Interleaved, one process.
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL as toFileUrl } from "node:url";
import { environment as sample, workflows } from "@wfr/generated/sample";
import { createClient } from "@wfr/runtime";
import { createTestEnvironment, scenario, TimeSkippingClock } from "@wfr/testing";
import { compareRow, valueAtMost } from "../lib/rows.mjs";

export const id = "time-skipping";
export const title = "Time skipping: a human wait followed to its expiry through @wfr/testing";
export const anchorName = "wake-ups only";
export const anchor =
  "the same kit and emulator, the clock jumping only to the client's next wake-up (the rule before)";

const CATALOG = fileURLToPath(new URL("../../catalog/sample.yaml", import.meta.url));
const MINUTE = 60_000;
const WAITS = [
  { label: "10 min", ms: 10 * MINUTE },
  { label: "1 h", ms: 60 * MINUTE },
  { label: "24 h", ms: 24 * 60 * MINUTE },
];
const login = workflows.supplierPortalLoginCheck;
const inputs = { portal_url: "https://portal.example.com", account_label: "main" };

/** A clock over the environment's admin API that knows nothing of the emulator's events. */
async function wakeUpsOnlyClient(env) {
  const admin = async (method, path, body) => {
    const response = await fetch(`${env.url}/_emulator${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return Date.parse((await response.json()).now);
  };
  const clock = await TimeSkippingClock.start({
    now: () => admin("GET", "/clock"),
    advance: (ms) => admin("POST", "/clock/advance", { ms }),
  });
  const fetchImpl = clock.wrapFetch(globalThis.fetch);
  const client = createClient({
    environment: env.environment,
    apiKey: env.apiKey,
    clock,
    fetch: fetchImpl,
  });
  return { clock, client };
}

/** One wait of `ms` followed to its expiry: wall ms, clock jumps, polls. */
export async function followToExpiry(ms, rule) {
  const env = await createTestEnvironment({ environment: sample, catalog: CATALOG });
  try {
    await env.setScenario(
      login,
      scenario(login).checkpoint({ kind: "mfa_code", reason: "code", expiresInMs: ms }),
    );
    const { clock, client } =
      rule === "ours" ? { clock: env.clock, client: env.client } : await wakeUpsOnlyClient(env);
    const start = performance.now();
    const run = await client.launch(login, { inputs });
    let polls = 0;
    const ended = await client.waitForRun(run.run_id, {
      keepWaitingOnHuman: true,
      timeoutMs: ms + 60 * MINUTE,
      onUpdate: () => {
        polls += 1;
      },
    });
    const wallMs = performance.now() - start;
    if (ended.status !== "human_wait_expired")
      throw new Error(`the run ended ${ended.status}, not human_wait_expired`);
    return { wallMs, jumps: clock.skips.count, polls };
  } finally {
    await env.close();
  }
}

export async function run({ quick, log }) {
  const waits = quick ? WAITS.slice(0, 1) : WAITS;
  const repeats = quick ? 1 : 3;
  // A first launch in a process compiles its code paths: not measured.
  await followToExpiry(MINUTE, "ours");
  const samples = {};
  const rows = [];
  for (const wait of waits) {
    const taken = { ours: [], anchor: [] };
    for (let r = 0; r < repeats; r += 1) {
      taken.ours.push(await followToExpiry(wait.ms, "ours"));
      // The rule before takes a poll per jump (20 s for a day here): once is enough beyond an hour.
      if (r === 0 || wait.ms <= 60 * MINUTE)
        taken.anchor.push(await followToExpiry(wait.ms, "anchor"));
    }
    const of = (variant, key) => taken[variant].map((s) => s[key]);
    samples[wait.label] = taken;
    log(
      `${wait.label}: ours ${of("ours", "wallMs").map(Math.round).join(", ")} ms (${of("ours", "jumps").join(", ")} jumps, ${of("ours", "polls").join(", ")} polls); wake-ups only ${of("anchor", "wallMs").map(Math.round).join(", ")} ms (${of("anchor", "jumps").join(", ")} jumps)`,
    );
    rows.push(
      compareRow(
        `${wait.label} wait: wall time`,
        "ms",
        of("ours", "wallMs"),
        of("anchor", "wallMs"),
        wait.ms >= 24 * 60 * MINUTE ? valueAtMost(1000, "ms") : undefined,
      ),
      compareRow(
        `${wait.label} wait: clock jumps`,
        "jumps",
        of("ours", "jumps"),
        of("anchor", "jumps"),
      ),
    );
  }
  return {
    rows,
    samples,
    notes: [
      `Each wait: a fresh createTestEnvironment (its start not timed), launch, waitForRun({ keepWaitingOnHuman }) to human_wait_expired; ${repeats} repeats, the rule before once for 24 h.`,
      "Target: a 24-hour expiry under 1 s of wall time.",
    ],
  };
}

if (process.argv[1] && import.meta.url === toFileUrl(process.argv[1]).href) {
  const { standalone } = await import("../lib/standalone.mjs");
  await standalone({ id, title, anchor, help: `node bench/cases/${id}.mjs [--quick]`, run });
}
