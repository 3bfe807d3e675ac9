// What an input at ten times its budget costs a server in a process of its own
// (docs/limits.md): the process's peak resident memory over its resident size just before (the
// kernel's high-water mark VmHWM, reset by writing 5 to /proc/<pid>/clear_refs; Linux), and a
// sender that streams generated chunks (never one giant string) and lets another caller in
// half-way, so a test can show that caller was answered while the body was still arriving.
import { readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";

export const KiB = 1024;
export const MiB = 1024 * KiB;
/**
 * Below this the kernel's figure cannot tell a body kept from the process's own churn: socket
 * reads are fresh buffers, freed only at the next garbage collection, and loopback's receive
 * buffer grows to 32 MiB (`net.ipv4.tcp_rmem`), so a server the scheduler leaves waiting finds
 * megabytes already queued when it is refused and reads them all as garbage. A bare node:http
 * server that refuses at 2 MiB and drops the rest of a 20 MiB stream grew its peak by 0 to 8 MiB
 * on an idle machine and up to 9.7 MiB at a load average of 17 (2026-11-29); the emulator's
 * `/mcp` row grew 10.9 MiB in a loaded CI run, keeping at most its 2 MiB.
 */
export const MEMORY_RESOLUTION = 16 * MiB;

/**
 * How much to send a surface of `budget` bytes: ten times it, and never less than twice the
 * resolution, so that a server that kept the whole body could not pass as churn. A server that
 * refuses at its budget reads little of it: the sender stops once answered.
 */
export const oversizedTotal = (budget: number) => Math.max(10 * budget, 2 * MEMORY_RESOLUTION);

function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return { rss: kib("VmRSS") * KiB, peak: kib("VmHWM") * KiB };
}

/** Runs `work`; resolves with its result and how far `pid`'s peak memory rose over its start. */
export async function peakGrowth<T>(
  pid: number,
  work: () => Promise<T>,
): Promise<{ result: T; growth: number }> {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
  const before = memoryOf(pid);
  const result = await work();
  return { result, growth: Math.max(0, memoryOf(pid).peak - before.rss) };
}

/** The most a surface of `budget` bytes may grow its process at ten times it. */
export const memoryTarget = (budget: number) => Math.max(2 * budget, MEMORY_RESOLUTION);

/** `total` bytes of `byte`, `size` (64 KiB) at a time. */
export function* filler(total: number, byte = 0x78, size = 64 * KiB): Generator<Buffer> {
  const chunk = Buffer.alloc(size, byte);
  for (let sent = 0; sent < total; sent += chunk.length)
    yield total - sent >= chunk.length ? chunk : chunk.subarray(0, total - sent);
}

export interface Answer {
  status: number;
  text: string;
  /** Whether the caller let in half-way was answered before this body's answer. */
  otherAnswered?: boolean;
}

/**
 * Streams `chunks` (no Content-Length); once `midway` bytes are written, waits for `other()` (a
 * second caller) before writing more. Stops writing once answered; the answer's first 16 KiB.
 */
export function streamTo(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    chunks: Iterable<Buffer | string>;
    midway?: number;
    other?: () => Promise<boolean>;
  },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    let sent = 0;
    let otherAnswered: boolean | undefined;
    const req = request(url, { method: options.method ?? "POST", headers: options.headers });
    req.on("response", (res) => {
      answered = true;
      let text = "";
      res.on("data", (d: Buffer) => {
        if (text.length < 16 * KiB) text += d;
      });
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, text, otherAnswered });
        req.destroy();
      });
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    const it = options.chunks[Symbol.iterator]();
    const pump = (): void => {
      while (!answered) {
        if (options.other && otherAnswered === undefined && sent >= (options.midway ?? 0)) {
          otherAnswered = false;
          options.other().then((ok) => {
            otherAnswered = ok && !answered;
            pump();
          }, reject);
          return;
        }
        const next = it.next();
        if (next.done) return void req.end();
        sent += next.value.length;
        if (!req.write(next.value)) return void req.once("drain", pump);
      }
    };
    pump();
  });
}
