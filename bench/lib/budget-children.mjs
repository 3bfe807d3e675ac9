// The other servers the input-budgets case measures, each in a process of its own so that its
// peak memory is its own: a callback receiver (createCallbackHandler behind toNodeHandler, as
// the runtime's node:http, Express and Fastify examples run it), the invoice desk, and a test's
// process as the testing kit makes it (the emulator in-process, a recorded run replayed there).
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = (path) => pathToFileURL(fileURLToPath(new URL(`../../${path}`, import.meta.url))).href;

const SCRIPTS = {
  receiver: `
    const { createServer } = await import("node:http");
    const { createCallbackHandler } = await import(${JSON.stringify(root("packages/runtime/dist/index.js"))});
    const { toNodeHandler } = await import(${JSON.stringify(root("packages/runtime/dist/node.js"))});
    const unreachable = async () => { throw new Error("not reached: every delivery here is unsigned"); };
    const handler = createCallbackHandler({
      webhookSecret: "whsec_" + Buffer.from("a".repeat(32)).toString("base64"),
      client: { getRun: unreachable, getResult: unreachable },
      onCompleted: () => {},
    });
    const server = createServer(toNodeHandler(handler));
    server.listen(0, "127.0.0.1", () =>
      process.send({ url: "http://127.0.0.1:" + server.address().port }));`,
  desk: `
    const { startDesk } = await import(${JSON.stringify(root("apps/invoice-desk/dist/desk.js"))});
    const o = JSON.parse(process.env.DESK_OPTIONS);
    const desk = await startDesk({ ...o, port: 0, pollIntervalMs: 600000, log: () => {} });
    process.on("message", async (m) => { if (m === "close") { await desk.close(); process.exit(0); } });
    process.send({ url: desk.url });`,
  replay: `
    const { startEmulator, readRecordedRunFile } = await import(${JSON.stringify(root("packages/emulator/dist/index.js"))});
    const emu = await startEmulator({ port: 0, clock: "virtual" });
    process.on("message", async (m) => {
      if (m === "close") { await emu.close(); process.exit(0); }
      try { await readRecordedRunFile(m.replay); process.send({ replayed: "read" }); }
      catch (error) { process.send({ replayed: error.constructor.name + ": " + error.message }); }
    });
    process.send({ url: String(emu.url).replace(/\\/$/, "") });`,
};

/** Starts one of SCRIPTS in a child; resolves with its url, pid, ask(message) and stop(). */
export async function startChild(kind, env = {}) {
  const child = fork("--input-type=module", [], {
    execArgv: ["--input-type=module", "-e", SCRIPTS[kind]],
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const { url } = await new Promise((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => reject(new Error(`${kind} exited ${code}`)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    url,
    pid: child.pid,
    ask: (message) =>
      new Promise((resolve) => {
        child.once("message", resolve);
        child.send(message);
      }),
    async stop() {
      if (kind === "receiver") child.kill("SIGTERM");
      else child.send("close");
      await exited;
    },
  };
}

/** The invoice desk against `emulatorUrl` (a key made there), with a PGlite of its own. */
export async function startDeskChild(emulatorUrl) {
  const key = await fetch(`${emulatorUrl}/_emulator/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "production", scopes: ["workflows:run", "runs:read"] }),
  });
  const dir = mkdtempSync(join(tmpdir(), "bench-desk-"));
  let desk;
  try {
    desk = await startChild("desk", {
      DESK_OPTIONS: JSON.stringify({
        baseUrl: `${emulatorUrl}/production/api/v1`,
        apiKey: (await key.json()).token,
        pgliteDir: dir,
        operator: { username: "operator", password: "correct horse" },
      }),
    });
  } catch (error) {
    // startChild rejects once the desk has exited: nothing writes to the folder any more.
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    ...desk,
    async stop() {
      await desk.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
