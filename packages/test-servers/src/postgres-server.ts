// Starts a throwaway PostgreSQL server from Debian's `postgresql` package on a
// free loopback port in a temporary directory, and removes it afterwards. In
// CI a missing server is a failure, never a skip.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, waitUntil } from "./ports.js";

export interface PostgresServer {
  readonly url: string;
  readonly port: number;
  /** Stops the server as a crash would (SIGKILL of the postmaster and its children). */
  kill(): Promise<void>;
  /**
   * Stops it and starts it again on the same port and data directory.
   * `"immediate"` (default) stops as a crash would; `"fast"` is `pg_ctl
   * restart -m fast`: SIGINT to the postmaster, which rolls back and
   * disconnects every session, checkpoints, and exits.
   */
  restart(mode?: "immediate" | "fast"): Promise<void>;
  stop(): Promise<void>;
}

export function findPostgresBin(): string {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir && existsSync(join(dir, "pg_ctl")) && existsSync(join(dir, "initdb"))) return dir;
  }
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const dir = join(root, version, "bin");
      if (existsSync(join(dir, "pg_ctl"))) return dir;
    }
  }
  throw new Error("PostgreSQL is not installed: apt-get install -y postgresql (.ci/run does this)");
}

// initdb refuses to run as root; run the server as an unprivileged user then.
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ["postgres", "nobody"]) {
    try {
      const uid = Number(execFileSync("id", ["-u", name]).toString().trim());
      const gid = Number(execFileSync("id", ["-g", name]).toString().trim());
      return { uid, gid };
    } catch {}
  }
  throw new Error("running as root and no 'postgres' or 'nobody' user to run PostgreSQL as");
}

type RunAs = { uid: number; gid: number } | Record<string, never>;

function initdb(bin: string, data: string, as: RunAs): void {
  execFileSync(
    join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"],
    { ...as, stdio: "pipe", env: { ...process.env, LC_ALL: "C" } },
  );
}

/**
 * A freshly initialised data directory, made once per machine and PostgreSQL installation and
 * copied for each server: initdb bootstraps the catalogs in single-user mode (about 1.8
 * CPU-seconds), a copy of its 40 MB result costs a tenth of that, and the suite starts a dozen
 * servers. Made in a directory of its own and renamed into place, so concurrent test processes
 * never see half of one.
 */
function templateDataDir(bin: string, user: RunAs): string {
  const owner = "uid" in user ? user.uid : process.getuid?.();
  // The server's version is in the name: a data directory from another major version (an
  // upgrade behind the same bin path) would not start.
  const version = execFileSync(join(bin, "postgres"), ["--version"], { encoding: "utf8" });
  const name = `wfr-pg-template-${`${bin}-${version.trim()}`.replace(/[^A-Za-z0-9]+/g, "_")}-${owner ?? "user"}`;
  const template = join(tmpdir(), name);
  if (existsSync(join(template, "data", "PG_VERSION"))) return join(template, "data");
  const making = mkdtempSync(join(tmpdir(), `${name}-making-`));
  chmodSync(making, 0o755);
  if ("uid" in user) chownSync(making, user.uid, user.gid);
  initdb(bin, join(making, "data"), user);
  try {
    renameSync(making, template);
  } catch {
    // Another process put its template in place first; the two are the same.
    rmSync(making, { recursive: true, force: true });
  }
  return join(template, "data");
}

export async function startPostgresServer(): Promise<PostgresServer> {
  const bin = findPostgresBin();
  const dir = mkdtempSync(join(tmpdir(), "wfr-pg-"));
  chmodSync(dir, 0o755);
  const data = join(dir, "data");
  const user = serverUser();
  if (user) chownSync(dir, user.uid, user.gid);
  const as: RunAs = user ? { uid: user.uid, gid: user.gid } : {};
  // cp -a keeps the owner and the 0700 mode PostgreSQL insists on for its data directory.
  execFileSync("cp", ["-a", templateDataDir(bin, as), data], { stdio: "pipe" });
  const port = await freePort();
  let postmaster: ChildProcess | undefined;
  const start = async () => {
    postmaster = spawn(
      join(bin, "postgres"),
      [
        "-D",
        data,
        "-p",
        String(port),
        "-k",
        dir,
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "fsync=off",
      ],
      { ...as, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, LC_ALL: "C" } },
    );
    let log = "";
    postmaster.stderr?.on("data", (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000);
    });
    await waitUntil(async () => {
      if (postmaster?.exitCode !== null) throw new Error(`postgres exited: ${log}`);
      return log.includes("ready to accept connections");
    });
  };
  const kill = async (signal: "SIGQUIT" | "SIGINT" = "SIGQUIT") => {
    const child = postmaster;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    // SIGKILL of the postmaster leaves its backends; SIGQUIT is PostgreSQL's
    // "immediate shutdown": no checkpoint, crash recovery on the next start.
    // SIGINT is its "fast shutdown" (what pg_ctl -m fast sends).
    child.kill(signal);
    await exited;
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    kill: () => kill(),
    async restart(mode = "immediate") {
      await kill(mode === "fast" ? "SIGINT" : "SIGQUIT");
      await start();
    },
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
