// The built emulator in a Node process of its own, as a team runs it beside its app: a case that
// measures a client (or the emulator's own memory) across processes starts it here.
import { spawn } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

const ENTRY = pathToFileURL(
  fileURLToPath(new URL("../../packages/emulator/dist/index.js", import.meta.url)),
).href;

/** Starts it with these options (JSON); resolves with its URL, pid and a stop function. */
export async function startEmulatorProcess(options = {}) {
  const child = spawn(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `const { startEmulator } = await import(${JSON.stringify(ENTRY)});
       const emu = await startEmulator({ port: 0, ...${JSON.stringify(options)} });
       process.stdout.write(JSON.stringify({ url: String(emu.url).replace(/\\/$/, "") }) + "\\n");
       process.on("SIGTERM", async () => { await emu.close(); process.exit(0); });`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("\n")) resolve(JSON.parse(out).url);
    });
    child.once("exit", (code) => reject(new Error(`emulator exited ${code}`)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    url,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
