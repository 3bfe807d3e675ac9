// Time skipping against the real emulator, in-process: a polling client's waits run on to the
// emulator's next event, so a day-long human wait takes a handful of clock jumps; a request in
// flight still holds the clock, and what the emulator does before the expiry (a scenario step, a
// callback attempt) still happens at its time, in order (README "How time skips").
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { environment as sample, workflows } from "@wfr/generated/sample";
import { afterEach, describe, expect, it } from "vitest";
import { createTestEnvironment, scenario, type TestEnvironment } from "../src/index.js";

const SAMPLE_CATALOG = fileURLToPath(new URL("../../../catalog/sample.yaml", import.meta.url));
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The emulator's default queue and start times (packages/emulator/README.md "Scenario format"). */
const STARTED = 100;
const login = workflows.supplierPortalLoginCheck;
const loginInputs = { portal_url: "https://portal.example.com", account_label: "main" };

let env: TestEnvironment | undefined;
const servers: Server[] = [];
afterEach(async () => {
  await env?.close();
  env = undefined;
  for (const server of servers.splice(0))
    await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A few turns of the event loop, in which an unheld clock would have moved. */
async function turns(n = 20): Promise<void> {
  for (let i = 0; i < n; i += 1) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe("time skipping to the emulator's next event", () => {
  it("follows a 24-hour human wait to its expiry in a handful of jumps", async () => {
    env = await createTestEnvironment({ environment: sample, catalog: SAMPLE_CATALOG });
    await env.setScenario(
      login,
      scenario(login)
        .checkpoint({ kind: "mfa_code", reason: "Send the code", expiresInMs: DAY })
        .succeed({ logged_in: true }),
    );
    const startedAt = env.now();
    const wallStart = performance.now();
    const run = await env.client.launch(login, { inputs: loginInputs });
    let polls = 0;
    const ended = await env.client.waitForRun(run.run_id, {
      keepWaitingOnHuman: true,
      timeoutMs: DAY + HOUR,
      onUpdate: () => {
        polls += 1;
      },
    });
    const wallMs = performance.now() - wallStart;

    expect(ended.status).toBe("human_wait_expired");
    expect(env.now() - startedAt).toBe(STARTED + DAY);
    // Queued -> starting -> the checkpoint -> its expiry: one jump each, not one per poll.
    expect(env.clock.skips.count).toBeLessThanOrEqual(5);
    expect(polls).toBeLessThanOrEqual(5);
    // Reported, never asserted (the suite runs on loaded machines).
    console.log(
      `24-hour human wait to expiry: ${Math.round(wallMs)} ms wall, ${env.clock.skips.count} jumps, ${polls} polls`,
    );
  });

  it("a request in flight holds the clock, however far the next event is", async () => {
    env = await createTestEnvironment({ environment: sample, catalog: SAMPLE_CATALOG });
    await env.setScenario(
      login,
      scenario(login).checkpoint({ kind: "mfa_code", reason: "code", expiresInMs: DAY }),
    );
    let release: () => void = () => {};
    let arrived: () => void = () => {};
    const reached = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const held = await listen(
      createServer((req, res) => {
        req.resume();
        release = () => res.writeHead(200).end("{}");
        arrived();
      }),
    );
    const startedAt = env.now();
    const run = await env.client.launch(login, { inputs: loginInputs });
    const slow = env.fetch(`${held}/slow`).then(() => env?.now());
    const ended = env.client.waitForRun(run.run_id, {
      keepWaitingOnHuman: true,
      timeoutMs: DAY + HOUR,
    });
    await reached;
    await turns();
    expect(env.now()).toBe(startedAt);
    expect(env.clock.skips.count).toBe(0);
    release();
    // The held request ended with the clock where it was; only then did time move on.
    expect(await slow).toBe(startedAt);
    expect((await ended).status).toBe("human_wait_expired");
    expect(env.now() - startedAt).toBe(STARTED + DAY);
  });

  it("a scenario step and a callback's attempts before the expiry happen at their time, in order", async () => {
    env = await createTestEnvironment({ environment: sample, catalog: SAMPLE_CATALOG });
    const current = env;
    await env.setScenario(
      login,
      scenario(login)
        .wait(HOUR)
        .event("step.started", { name: "open login page" })
        .checkpoint({ kind: "mfa_code", reason: "code", expiresInMs: DAY })
        .succeed({ logged_in: true }),
    );
    // The receiver notes the emulator's time at each attempt, and fails the first one (503), so
    // the emulator retries it (packages/emulator/README.md "Callbacks").
    const attempts: string[] = [];
    const startedAt = env.now();
    const receiver = await listen(
      createServer((req, res) => {
        let body = "";
        req.on("data", (chunk) => {
          body += chunk;
        });
        req.on("end", async () => {
          const clock = (await (await fetch(`${current.url}/_emulator/clock`)).json()) as {
            now: string;
          };
          const at = Date.parse(clock.now) - startedAt;
          const status = attempts.length === 0 ? 503 : 200;
          attempts.push(`${JSON.parse(body).type} at ${at} answered ${status}`);
          res.writeHead(status).end();
        });
      }),
    );
    // A loopback receiver: the runtime launches only with a public callback_url, so by hand.
    const launched = await env.fetch(`${env.environment.baseUrl}/automations/${login.id}/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${env.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ inputs: loginInputs, callback_url: `${receiver}/hook` }),
    });
    expect(launched.status).toBe(202);
    const { run_id: runId } = (await launched.json()) as { run_id: string };

    const ended = await env.client.waitForRun(runId, {
      keepWaitingOnHuman: true,
      timeoutMs: 2 * DAY,
    });

    expect(ended.status).toBe("human_wait_expired");
    // The completed callback is sent as the run ends, beside the poll that saw the end.
    for (let i = 0; i < 500 && attempts.length < 3; i += 1) await turns(1);
    const checkpointAt = STARTED + HOUR;
    expect(attempts).toEqual([
      `workflow.run.requires_action at ${checkpointAt} answered 503`,
      `workflow.run.requires_action at ${checkpointAt} answered 200`,
      `workflow.run.completed at ${checkpointAt + DAY} answered 200`,
    ]);
    const events = await env.client.getEvents(runId);
    const timeline = (events as unknown as { events: { type: string; at: string }[] }).events
      .filter((e) => !e.type.startsWith("run."))
      .map((e) => `${e.type} at ${Date.parse(e.at) - startedAt}`);
    expect(timeline).toEqual([
      `step.started at ${checkpointAt}`,
      `human.requested at ${checkpointAt}`,
      `human.expired at ${checkpointAt + DAY}`,
    ]);
  });
});
