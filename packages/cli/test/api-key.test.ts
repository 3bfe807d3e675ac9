// Where `wfr` takes the key from (the variable, --api-key-file, --api-key-stdin), and that it is
// never printed. Through the built bin against the emulator.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";
import { launchInvoice, usePulledFixture } from "./harness.js";

const fx = usePulledFixture();
const { wfr } = fx;

it("no key: exit 8 naming the variable; a wrong key: exit 8, key never printed", async () => {
  const none = await wfr(["launch", "invoiceIntake", "--input", "amount=1"], {
    env: { WFR_PRODUCTION_API_KEY: "" },
  });
  expect(none.code).toBe(EXIT.AUTH);
  expect(none.stderr).toContain("WFR_PRODUCTION_API_KEY");
  const wrong = await wfr(["runs", "get", "run_x"], {
    env: { WFR_PRODUCTION_API_KEY: "wrong-secret-123" },
  });
  expect(wrong.code).toBe(EXIT.AUTH);
  expect(wrong.stdout + wrong.stderr).not.toContain("wrong-secret-123");
});

it("the key from --api-key-file and from stdin", async () => {
  const keyFile = join(fx.dir, "key.txt");
  writeFileSync(keyFile, `${fx.key}\n`);
  const runId = await launchInvoice(fx);
  const viaFile = await wfr(["runs", "get", runId, "--api-key-file", keyFile], {
    env: { WFR_PRODUCTION_API_KEY: "" },
  });
  expect(viaFile.code, viaFile.stderr).toBe(EXIT.OK);
  const viaStdin = await wfr(["runs", "get", runId, "--api-key-stdin"], {
    env: { WFR_PRODUCTION_API_KEY: "" },
    stdin: fx.key,
  });
  expect(viaStdin.code, viaStdin.stderr).toBe(EXIT.OK);
  expect(JSON.parse(viaStdin.stdout).run_id).toBe(runId);
});
