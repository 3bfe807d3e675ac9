// Runtime overhead: launch + getRun + getResult round trips against the emulator through
// @wfr/runtime (generated invoiceIntake definition, local validation on) versus raw fetch with
// hand-built bodies, measured two ways: as users run it (the emulator in a Node process of its
// own, each client in one of its own, taking turns; the target rows since 2026-11-29), and, as
// before, everything in the bench's process, interleaved round trip by round trip. Plus the local
// validation time per launch (definition.validateInputs) for a typical and a maximal input.
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startEmulatorProcess } from "../lib/emulator-process.mjs";
import { compareRow, valueAtMost } from "../lib/rows.mjs";
import {
  clientModules,
  clientSides,
  createKey,
  finishedRun,
  PDF,
  startSideProcess,
} from "../lib/runtime-clients.mjs";
import { summarize } from "../lib/stats.mjs";

export const id = "runtime-overhead";
export const title = "Runtime overhead: launch + getRun + getResult";
export const anchorName = "raw fetch";
export const anchor =
  "raw fetch with hand-built JSON bodies and every answer parsed, same emulator; each client in a process of its own, and both in one process, interleaved";
export const help = `node bench/cases/runtime-overhead.mjs [--quick]
One round trip = launch + getRun of a new run of the sample invoiceIntake (the emulator's
production environment, virtual clock; small PDF attachment) and getResult of one that has
succeeded (its outputs checked by the runtime against the output schema; until 2026-11-29 the
result read was the new run's, a 202 without outputs), through @wfr/runtime with local
validation, and the same three requests through raw fetch with hand-built bodies (each answer
parsed with .json(), as a caller must to use it).
Own processes (the rows marked "own processes", the target rows): the built emulator in a Node
process of its own; per round, a fresh Node process holding the runtime and a fresh one holding
raw fetch take turns in blocks of 50 round trips (which goes first alternates), 20 blocks each to
warm up, then 16 measured: 9 rounds (--quick: 1 round, 1 + 2 blocks of 10). Per round: each
side's median wall time per round trip and its own process CPU per round trip (user + system,
every thread of the client's process: garbage collection and the compiler included; the
emulator's CPU is not counted), and the paired ratios of the round.
One process, interleaved (the rows without the prefix, the target rows before 2026-11-29): the
emulator in the bench's own process, the two clients interleaved pair by pair (which side goes
first rotates), after 50 warm-up pairs: 15 rounds of 80 pairs (--quick: 1 round of 20). A third
side, without a target, sends the raw requests with an abort signal and a 30 s timer each. Per
round: the median wall time per round trip of each side and the mean process CPU time per round
trip (both clients and the emulator), and the paired ratios of the round.
Rows give the median over rounds, so one noisy round does not decide the figure.
Then times invoiceIntake.validateInputs on a typical input and on a maximal one (every optional
field, 10 supporting files, 10,000 line items), 5 batches.
Target: runtime round trip within 5% of raw fetch (<= 1.05x), paired per round, in wall time and
in the client's process CPU, each client in a process of its own (before 2026-11-29: both
clients and the emulator in one process; 1.10x, wall only, before 2026-11-28).`;

const root = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The round trips as users make them: the emulator in a Node process of its own and each client
 * in one of its own. Per round, a fresh runtime process and a fresh raw fetch process take turns
 * block by block (which one goes first alternates), first to warm up, then measured; each side's
 * figures of the round: its median wall time per round trip and its own process CPU per round
 * trip, and the paired ratios.
 */
async function ownProcessRounds({ quick, log }) {
  const rounds = quick ? 1 : 9;
  const block = quick ? 10 : 50;
  // A fresh process's CPU per round trip falls for its first ~700 round trips (the compiler's
  // threads at work, the young generation growing): 1,000 before measuring.
  const warmupBlocks = quick ? 1 : 20;
  const measuredBlocks = quick ? 2 : 16;
  const emulator = await startEmulatorProcess({ host: "127.0.0.1", clock: "virtual" });
  const figures = { runtime: [], fetch: [] };
  const wallRatios = [];
  const cpuRatios = [];
  try {
    const token = await createKey(emulator.url);
    const baseUrl = `${emulator.url}/production/api/v1`;
    const { invoiceIntake } = await clientModules();
    const finishedRunId = await finishedRun(emulator.url, token, invoiceIntake);
    for (let r = 0; r < rounds; r++) {
      const processes = {
        runtime: await startSideProcess("runtime", baseUrl, token, finishedRunId),
        fetch: await startSideProcess("fetch", baseUrl, token, finishedRunId),
      };
      try {
        const wall = { runtime: [], fetch: [] };
        const cpu = { runtime: 0, fetch: 0 };
        for (let b = 0; b < warmupBlocks + measuredBlocks; b++) {
          const order = (r + b) % 2 === 0 ? ["runtime", "fetch"] : ["fetch", "runtime"];
          for (const side of order) {
            const done = await processes[side].roundTrips(block);
            if (b < warmupBlocks) continue;
            wall[side].push(...done.wallMs);
            cpu[side] += done.cpuMs;
          }
        }
        const trips = block * measuredBlocks;
        for (const side of ["runtime", "fetch"])
          figures[side].push({ wallMs: summarize(wall[side]).median, cpuMs: cpu[side] / trips });
      } finally {
        await processes.runtime.stop();
        await processes.fetch.stop();
      }
      const ours = figures.runtime.at(-1);
      const theirs = figures.fetch.at(-1);
      wallRatios.push(ours.wallMs / theirs.wallMs);
      cpuRatios.push(ours.cpuMs / theirs.cpuMs);
      log(
        `own processes, round ${r + 1}: runtime ${ours.wallMs.toFixed(2)} ms (CPU ${ours.cpuMs.toFixed(2)}), raw fetch ${theirs.wallMs.toFixed(2)} ms (CPU ${theirs.cpuMs.toFixed(2)}) per round trip: ${wallRatios.at(-1).toFixed(2)}x wall, ${cpuRatios.at(-1).toFixed(2)}x CPU`,
      );
    }
  } finally {
    await emulator.stop();
  }
  return { rounds, block, warmupBlocks, measuredBlocks, figures, wallRatios, cpuRatios };
}

async function inOneProcess({ quick, log }) {
  const { startEmulator } = await import(
    pathToFileURL(join(root, "packages/emulator/dist/index.js")).href
  );
  const { runtime, invoiceIntake } = await clientModules();
  const batches = quick ? 1 : 5;
  // 15 x 80 (before 2026-11-26: 9 x 60): a tighter median for every side alike, affordable since
  // the maximal validation input no longer takes 130 ms a call.
  const rounds = quick ? 1 : 15;
  const pairsPerRound = quick ? 20 : 80;
  const emu = await startEmulator({ port: 0, host: "127.0.0.1", clock: "virtual" });
  try {
    const emuUrl = String(emu.url).replace(/\/$/, "");
    const token = await createKey(emuUrl);
    const baseUrl = `${emuUrl}/production/api/v1`;
    const { typical, viaRuntime, viaFetch, viaTimedFetch } = clientSides({
      runtime,
      invoiceIntake,
      baseUrl,
      token,
      finishedRunId: await finishedRun(emuUrl, token, invoiceIntake),
    });
    // Warm both paths (JIT, keep-alive sockets, lazy schemas) outside the measurement.
    for (let i = 0; i < (quick ? 10 : 50); i++) {
      await viaRuntime();
      await viaFetch();
      await viaTimedFetch();
    }
    // CPU time of the process (both clients and the emulator) per round trip: on a shared machine
    // a process that is not scheduled loses wall time but not CPU time, so this row shows the
    // work each side causes even when the wall-clock row is noisy.
    const cpuMs = (since) => {
      const used = process.cpuUsage(since);
      return (used.user + used.system) / 1000;
    };
    const ours = [];
    const theirs = [];
    const oursCpu = [];
    const theirsCpu = [];
    const wallRatios = [];
    const cpuRatios = [];
    const timedWallRatios = [];
    const timedCpuRatios = [];
    const sides = { runtime: viaRuntime, fetch: viaFetch, timed: viaTimedFetch };
    const rotations = [
      ["runtime", "fetch", "timed"],
      ["fetch", "timed", "runtime"],
      ["timed", "runtime", "fetch"],
    ];
    for (let r = 0; r < rounds; r++) {
      const wall = { runtime: [], fetch: [], timed: [] };
      const cpu = { runtime: 0, fetch: 0, timed: 0 };
      for (let i = 0; i < pairsPerRound; i++) {
        // Rotate which side goes first so none always follows another.
        for (const side of rotations[i % rotations.length]) {
          const c0 = process.cpuUsage();
          const t0 = performance.now();
          await sides[side]();
          wall[side].push(performance.now() - t0);
          cpu[side] += cpuMs(c0);
        }
      }
      timedWallRatios.push(summarize(wall.runtime).median / summarize(wall.timed).median);
      timedCpuRatios.push(cpu.runtime / cpu.timed);
      ours.push(summarize(wall.runtime).median);
      theirs.push(summarize(wall.fetch).median);
      oursCpu.push(cpu.runtime / pairsPerRound);
      theirsCpu.push(cpu.fetch / pairsPerRound);
      wallRatios.push(ours.at(-1) / theirs.at(-1));
      cpuRatios.push(oursCpu.at(-1) / theirsCpu.at(-1));
      log(
        `round ${r + 1}: runtime ${ours.at(-1).toFixed(2)} ms (CPU ${oursCpu.at(-1).toFixed(2)}), raw fetch ${theirs.at(-1).toFixed(2)} ms (CPU ${theirsCpu.at(-1).toFixed(2)}) per round trip: ${wallRatios.at(-1).toFixed(2)}x wall, ${cpuRatios.at(-1).toFixed(2)}x CPU`,
      );
    }

    // Local validation per launch: the call @wfr/runtime makes before building the body.
    const maximal = {
      ...typical(),
      due_date: "2026-12-31",
      paid: true,
      supporting_docs: Array.from({ length: 10 }, (_, i) =>
        runtime.file(PDF, { filename: `doc-${i}.pdf`, mimeType: "application/pdf" }),
      ),
      line_items: Array.from({ length: 10_000 }, (_, i) => ({
        sku: `SKU-${i}`,
        description: `Line ${i}`,
        quantity: i % 7,
        unit_price: 1.25 * i,
      })),
    };
    const timeValidation = (inputs, iterations) => {
      const out = [];
      for (let b = 0; b < batches; b++) {
        const issues = invoiceIntake.validateInputs(inputs);
        if (issues.length > 0) throw new Error(`bench input invalid: ${JSON.stringify(issues)}`);
        const t0 = performance.now();
        for (let i = 0; i < iterations; i++) invoiceIntake.validateInputs(inputs);
        out.push(((performance.now() - t0) / iterations) * 1000);
      }
      return out;
    };
    const typicalUs = timeValidation(typical(), quick ? 200 : 2000);
    const maximalUs = timeValidation(maximal, quick ? 2 : 20);
    return {
      rows: [
        compareRow(
          "launch + getRun + getResult, wall per round trip (median of round medians)",
          "ms",
          ours,
          theirs,
        ),
        compareRow(
          "launch + getRun + getResult, process CPU per round trip (median of round means)",
          "ms",
          oursCpu,
          theirsCpu,
        ),
        compareRow("runtime / raw fetch, wall, paired per round", "x", wallRatios),
        compareRow("runtime / raw fetch, CPU, paired per round", "x", cpuRatios),
        compareRow(
          "runtime / raw fetch with a 30 s abort signal per request, wall, paired per round",
          "x",
          timedWallRatios,
        ),
        compareRow(
          "runtime / raw fetch with a 30 s abort signal per request, CPU, paired per round",
          "x",
          timedCpuRatios,
        ),
        compareRow("validateInputs, typical input (4 fields, 1 file)", "us", typicalUs),
        compareRow(
          "validateInputs, maximal input (all fields, 11 files, 10,000 line items)",
          "us",
          maximalUs,
        ),
      ],
      samples: {
        runtimeMs: ours,
        rawFetchMs: theirs,
        runtimeCpuMs: oursCpu,
        rawFetchCpuMs: theirsCpu,
        wallRatios,
        cpuRatios,
        timedWallRatios,
        timedCpuRatios,
        typicalUs,
        maximalUs,
      },
      notes: [
        `${rounds} round(s) of ${pairsPerRound} interleaved pairs (plus the timed raw side; 9 x 60 before 2026-11-26, the same for every side); wall: median round trip of each round, CPU: mean of each round (garbage collection included); the emulator runs in the same process as the clients. These rows (no prefix) carried the target before 2026-11-29 and are kept, without it, as the old measure.`,
        "Validation figures are our own (no anchor: openapi-fetch validates nothing locally).",
      ],
    };
  } finally {
    await emu.close();
  }
}

export async function run({ quick = false, log = console.log } = {}) {
  const interleaved = await inOneProcess({ quick, log });
  const own = await ownProcessRounds({ quick, log });
  const wall = (side) => own.figures[side].map((f) => f.wallMs);
  const cpu = (side) => own.figures[side].map((f) => f.cpuMs);
  return {
    rows: [
      compareRow(
        "own processes: wall per round trip (median of round medians)",
        "ms",
        wall("runtime"),
        wall("fetch"),
      ),
      compareRow(
        "own processes: client process CPU per round trip (median of round means)",
        "ms",
        cpu("runtime"),
        cpu("fetch"),
      ),
      compareRow(
        "own processes: runtime / raw fetch, wall, paired per round",
        "x",
        own.wallRatios,
        undefined,
        valueAtMost(1.05, "x"),
      ),
      compareRow(
        "own processes: runtime / raw fetch, client process CPU, paired per round",
        "x",
        own.cpuRatios,
        undefined,
        valueAtMost(1.05, "x"),
      ),
      ...interleaved.rows,
    ],
    samples: { ...interleaved.samples, ownProcesses: own },
    notes: [
      `"own processes" rows (the target rows): ${own.rounds} round(s), each a fresh runtime process and a fresh raw fetch process taking turns in blocks of ${own.block} round trips against the emulator in a third process, ${own.warmupBlocks} blocks each to warm up (a fresh process's CPU per round trip falls for its first ~700 round trips), then ${own.measuredBlocks} measured; CPU is the client's process only. They carry the target because a user's process holds one client, not both, and its CPU is the client's own (the old rows add the emulator's to both sides); interleaved in one process with the emulator, the runtime fared worse against raw fetch than in its own process in five runs (paired, wall 1.08-1.11x against 1.02-1.10x, CPU 1.04-1.11x against 1.02-1.08x; bench/findings.md, 2026-11-29, fourth look). The paired ratios carry it; the medians of each side over rounds pair figures minutes apart, at different loads.`,
      ...interleaved.notes,
    ],
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { standalone } = await import("../lib/standalone.mjs");
  await standalone({ id, title, anchor, help, run });
}
