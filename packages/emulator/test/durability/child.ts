// A real wfr-emulator process (dist/bin.js) on a free loopback port, for kill -9 tests.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const PKG = fileURLToPath(new URL("../../", import.meta.url));
/** WFR_EMULATOR_BIN runs the suite against another build (to show a test fails on old code). */
export const BIN = process.env.WFR_EMULATOR_BIN ?? join(PKG, "dist", "bin.js");
const EXTRA = process.env.WFR_EMULATOR_BIN ? [] : ["--quiet"];

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export class Child {
  output = "";
  private constructor(readonly proc: ChildProcess) {}

  static async start(port: number, args: string[]): Promise<Child> {
    const proc = spawn(
      process.execPath,
      [BIN, "--port", String(port), "--host", "127.0.0.1", ...EXTRA, ...args],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const child = new Child(proc);
    proc.stdout?.on("data", (d) => {
      child.output += d;
    });
    proc.stderr?.on("data", (d) => {
      child.output += d;
    });
    for (let i = 0; i < 1200; i++) {
      if (proc.exitCode !== null) throw new Error(`wfr-emulator exited: ${child.output}`);
      try {
        const r = await fetch(`http://127.0.0.1:${port}/_emulator/clock`);
        await r.arrayBuffer();
        return child;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    proc.kill("SIGKILL");
    throw new Error(`wfr-emulator did not start: ${child.output}`);
  }

  kill9(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.proc.once("exit", () => resolve());
      this.proc.kill("SIGKILL");
    });
  }
}
