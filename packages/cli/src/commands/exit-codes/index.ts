import { EXIT, exitCodeTableText } from "../../exit-codes.js";

export async function exitCodesCommand(): Promise<number> {
  process.stdout.write(exitCodeTableText());
  return EXIT.OK;
}
