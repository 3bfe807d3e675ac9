// The suite's child processes (receivers and launchers, compiled to dist/): started with an IPC
// channel, killed with a real SIGKILL, and always ended by the suite, on failure too.
import { type ChildProcess, fork } from "node:child_process";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";

// Children run as JavaScript: from dist/, also when this module is the source Vitest runs.
const here = fileURLToPath(new URL(".", import.meta.url));
const built = basename(here) === "src" ? join(here, "..", "dist") : here;
export const RECEIVER = join(built, "receiver-process.js");
export const LAUNCHER = join(built, "launcher-process.js");

export interface Child {
  readonly process: ChildProcess;
  /** Resolves with the exit code (null after a signal). */
  readonly exited: Promise<number | null>;
  /** How many `{type}` messages it sent so far, by type. */
  readonly messages: Map<string, number>;
}

/** Every child the suite started and has not seen exit: `endAll` ends them. */
const running = new Set<Child>();

export function startChild(module: string, env: Record<string, string>): Child {
  const child = fork(module, [], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const messages = new Map<string, number>();
  child.on("message", (message: { type?: string }) => {
    const type = message.type ?? "?";
    messages.set(type, (messages.get(type) ?? 0) + 1);
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  const started: Child = { process: child, exited, messages };
  running.add(started);
  void exited.then(() => running.delete(started));
  return started;
}

/** Starts a receiver and waits until it listens; resolves with its port. */
export async function startReceiver(
  env: Record<string, string>,
): Promise<Child & { port: number }> {
  const child = startChild(RECEIVER, env);
  const port = await new Promise<number>((resolve, reject) => {
    child.process.on("message", (message: { type?: string; port?: number }) => {
      if (message.type === "ready") resolve(message.port ?? 0);
    });
    void child.exited.then((code) => reject(new Error(`a receiver exited at start (${code})`)));
  });
  return { ...child, port };
}

/** SIGKILL: no handler runs, nothing is flushed, leases stay held. */
export async function kill(child: Child): Promise<void> {
  if (child.process.exitCode === null && child.process.signalCode === null)
    child.process.kill("SIGKILL");
  await child.exited;
}

/** Asks a receiver to stop (drain, close its store); SIGKILL if it has not within `graceMs`. */
export async function stop(child: Child, graceMs = 10_000): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  if (child.process.connected) child.process.send({ type: "stop" });
  const timer = new Promise((resolve) => setTimeout(resolve, graceMs).unref());
  await Promise.race([child.exited, timer]);
  await kill(child);
}

/** Ends every child still running (the suite's `finally`). */
export async function endAll(): Promise<void> {
  await Promise.all([...running].map((child) => stop(child, 5_000)));
}
