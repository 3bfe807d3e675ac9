// Starts a throwaway Redis from Debian's `redis-server` package on a free
// loopback port in a temporary directory, and removes it afterwards.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, waitUntil } from "./ports.js";

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** SIGKILL: with persistence off (the default here) every key is lost. */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export function findRedisServer(): string {
  for (const dir of [...(process.env.PATH ?? "").split(":"), "/usr/bin", "/usr/local/bin"]) {
    if (dir && existsSync(join(dir, "redis-server"))) return join(dir, "redis-server");
  }
  throw new Error("Redis is not installed: apt-get install -y redis-server (.ci/run does this)");
}

export interface StartRedisOptions {
  /** Append-only file with fsync on every write, so a restart keeps the data. Default off. */
  readonly appendOnly?: boolean;
}

export async function startRedisServer(options: StartRedisOptions = {}): Promise<RedisServer> {
  const bin = findRedisServer();
  const dir = mkdtempSync(join(tmpdir(), "wfr-redis-"));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const persistence = options.appendOnly
      ? ["--appendonly", "yes", "--appendfsync", "always"]
      : ["--appendonly", "no"];
    child = spawn(
      bin,
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--dir",
        dir,
        "--protected-mode",
        "yes",
        ...persistence,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let log = "";
    const collect = (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000);
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    await waitUntil(async () => {
      if (child?.exitCode !== null) throw new Error(`redis-server exited: ${log}`);
      return log.includes("Ready to accept connections");
    });
  };
  const kill = async () => {
    const running = child;
    // A process ended by a signal has a signalCode and no exitCode: waiting for its exit again
    // would never end (kill() and then restart() or stop()).
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    async restart() {
      await kill();
      await start();
    },
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
