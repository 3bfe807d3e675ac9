// `wfr generate --watch`: generate once, then again after every change under the schemas folder
// (debounced: an editor's save or `wfr schemas pull` is several writes). A broken definition is
// reported and the watch goes on; the next good save generates again. SIGINT/SIGTERM stop it.
import { type FSWatcher, watch } from "node:fs";
import { relative } from "node:path";

export interface WatchGenerateOptions {
  readonly schemas: string;
  /** Generates once; resolves with its exit code (0: written or up to date). */
  readonly generateOnce: () => Promise<number>;
  readonly log: (line: string) => void;
  /** Quiet time after the last change before generating. Default 200 ms. */
  readonly debounceMs?: number;
  /** Stops the watch (tests); default: SIGINT or SIGTERM. */
  readonly stop?: Promise<void>;
}

export async function watchGenerate(options: WatchGenerateOptions): Promise<number> {
  const debounceMs = options.debounceMs ?? 200;
  let running: Promise<void> = Promise.resolve();
  let again = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let changed = new Set<string>();

  const generate = async (why: string) => {
    options.log(`wfr generate --watch: ${why}`);
    const code = await options.generateOnce().catch((error: unknown) => {
      options.log(`wfr generate --watch: ${(error as Error).message}`);
      return 1;
    });
    options.log(
      code === 0
        ? "wfr generate --watch: generated; waiting for changes"
        : "wfr generate --watch: the definition above could not be used; fix it and save again",
    );
  };
  // One generation at a time; a change during one makes exactly one more.
  const schedule = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      const files = [...changed].sort();
      changed = new Set();
      if (again) return;
      again = true;
      running = running.then(async () => {
        again = false;
        await generate(`${files.join(", ")} changed`);
      });
    }, debounceMs);
  };

  // Watch (and listen for the stop signals) before the first generation: its "waiting for changes"
  // line must be true when printed, so a change saved right after it (or during it) is seen.
  let watcher: FSWatcher;
  try {
    watcher = watch(options.schemas, { recursive: true }, (_event, file) => {
      if (file && /\.(json|ya?ml)$/.test(String(file))) {
        changed.add(String(file));
        schedule();
      }
    });
  } catch (error) {
    options.log(
      `wfr generate --watch: cannot watch ${options.schemas}: ${(error as Error).message}`,
    );
    return 1;
  }
  const stop =
    options.stop ??
    new Promise<void>((resolve) => {
      process.once("SIGINT", () => resolve());
      process.once("SIGTERM", () => resolve());
    });
  running = generate(`watching ${relative(process.cwd(), options.schemas) || "."}`);
  await stop;
  watcher.close();
  if (timer) clearTimeout(timer);
  await running;
  options.log("wfr generate --watch: stopped");
  return 0;
}
