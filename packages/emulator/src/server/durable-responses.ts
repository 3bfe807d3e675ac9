// An answer leaves only after the journal holds what it shows (docs: packages/emulator/README.md
// "Persistence"). The journal writes and fsyncs in batches off the event loop (journal.ts), so a
// handler that changed state has only queued its records when it calls `res.end`; this wrapper
// holds the response's bytes (write and end, in their order) until the journal says everything
// appended before them is fsync'd. Headers go out with the first write, so nothing of the
// answer, not even its status, reaches the client earlier. A failed fsync destroys the
// connection: the client sees no answer, which is the truth (nothing was acknowledged).
import type { ServerResponse } from "node:http";

/** When everything appended so far is durable: null when it already is. */
export type Durability = () => Promise<void> | null;

type Held = { method: "write" | "end"; args: unknown[] };

export function holdUntilDurable(res: ServerResponse, durable: Durability): void {
  const write = res.write.bind(res) as (...a: unknown[]) => boolean;
  const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
  let held: Held[] | null = null;
  const release = () => {
    const calls = held ?? [];
    held = null;
    for (const c of calls) (c.method === "write" ? write : end)(...c.args);
  };
  const hold = (method: Held["method"], args: unknown[]): boolean => {
    if (held !== null) {
      held.push({ method, args });
      return true;
    }
    const wait = durable();
    if (wait === null) return false;
    held = [{ method, args }];
    wait.then(release, (e: unknown) => {
      held = null;
      res.destroy(e instanceof Error ? e : new Error(String(e)));
    });
    return true;
  };
  res.write = ((...args: unknown[]) => (hold("write", args) ? true : write(...args))) as never;
  res.end = ((...args: unknown[]) => (hold("end", args) ? res : end(...args))) as never;
}
