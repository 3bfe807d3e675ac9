// Loaded into the emulator's own process by the emulator-soak case (`node --expose-gc --import
// <this file> dist/bin.js ...`): records that process's event-loop delay and its heap after a
// full GC, one JSON line per sample, to the file named by WFR_SOAK_PROBE. The forced GC is kept
// out of the delay histograms (the emulator never forces one itself).
import { appendFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";

const file = process.env.WFR_SOAK_PROBE;
const every = Number(process.env.WFR_SOAK_PROBE_MS ?? 5000);
if (file) {
  const total = monitorEventLoopDelay({ resolution: 5 });
  const window = monitorEventLoopDelay({ resolution: 5 });
  total.enable();
  window.enable();
  const timer = setInterval(() => {
    total.disable();
    window.disable();
    const sample = {
      at: Date.now(),
      p99_ms: total.percentile(99) / 1e6,
      max_ms: total.max / 1e6,
      window_p99_ms: window.percentile(99) / 1e6,
      window_max_ms: window.max / 1e6,
    };
    window.reset();
    globalThis.gc?.();
    const mem = process.memoryUsage();
    sample.heap_used = mem.heapUsed;
    sample.rss = mem.rss;
    appendFileSync(file, `${JSON.stringify(sample)}\n`);
    total.enable();
    window.enable();
  }, every);
  timer.unref();
}
