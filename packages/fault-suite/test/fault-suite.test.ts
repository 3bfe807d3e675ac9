// The fault suite in `pnpm test` (README.md): the CI variant, its table printed, and every row
// at 0 lost and 0 duplicated. On failure the seed is in the message: `WFR_FAULT_SEED=<seed>`
// replays the fault schedule (`node dist/cli.js --seed <seed>` outside Vitest).
import { expect, it } from "vitest";
import { freshSeed, NETWORK_FAULTS } from "../src/fault-schedule.js";
import { CI_SIZE, runFaultSuite } from "../src/suite.js";
import { renderTable } from "../src/tally.js";

it("no side effect lost or duplicated under network faults, restarts and kills", async () => {
  const seed = process.env.WFR_FAULT_SEED ? Number(process.env.WFR_FAULT_SEED) : freshSeed();
  const log = (line: string) => process.stdout.write(`fault-suite: ${line}\n`);
  log(`ci variant, seed ${seed}`);
  const { rows } = await runFaultSuite(CI_SIZE, seed, log);
  process.stdout.write(`${renderTable(rows)}\n\nseed ${seed} (ci)\n`);
  for (const row of rows)
    expect(
      { fault: row.fault, lost: row.lost, duplicated: row.duplicated },
      `seed ${seed}`,
    ).toEqual({
      fault: row.fault,
      lost: 0,
      duplicated: 0,
    });
  // Each fault was met: the network faults by some connection, each burst by its runs.
  const applied = rows.filter((row) => !row.fault.startsWith("launch failed"));
  expect(applied.length).toBe(NETWORK_FAULTS.length + 5);
  for (const row of applied)
    expect(row.operations, `${row.fault} (seed ${seed})`).toBeGreaterThan(0);
}, 600_000);
